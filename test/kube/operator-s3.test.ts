/**
 * The operator with step logs in an S3-compatible bucket (SVC_S3_BUCKET, ADR 0014), as on a cluster
 * without ReadWriteMany storage: step Pods mount no data volume; each gets an upload grant for its own
 * execution's keys and its entry sends the logs (while the step runs) and the result there. The REST API
 * reads logs and outputs from the bucket. MinIO stands in for S3.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../helpers/server.js';
import { describeMinio } from '../helpers/minio.js';
import type { TestServer } from '../helpers/server.js';
import { kubectl } from '../testbed/helpers.js';
import { describeCluster } from './env.js';
import { BucketServer, finished, start } from './servers.js';

const BUCKET = 'svc-step-logs';

describeCluster('the operator with step logs in a bucket', () => describeMinio('on MinIO', () => {
  const bucket = new BucketServer(BUCKET, { SVC_S3_PREFIX: 'team-a' });
  let srv: TestServer;
  let ns = '';

  beforeAll(async () => {
    await bucket.start();
    srv = bucket.srv;
    ns = srv.server.namespace!;
  }, 60_000);
  afterAll(() => bucket.stop());

  const keys = (prefix: string) => bucket.keys(prefix);
  const log = async (dag: string, id: string, step: string, stream: string) => (await srv.get(`/dag-runs/${dag}/${id}/steps/${step}/log?stream=${stream}`)).body.content;

  test('logs apart, outputs, retries and a merged log all reach the bucket; nothing is on the data directory', async () => {
    srv.dag('chain', [
      'steps:',
      '  - name: first', '    command: sh -c \'echo alpha; echo "to stderr" >&2\'', '    output: A',
      '  - name: flaky', '    depends: [first]', '    command: sh -c \'echo "try $A"; test -f /tmp/svc-s3-flaky-$DAG_RUN_ID || { touch /tmp/svc-s3-flaky-$DAG_RUN_ID; exit 3; }\'',
      '    retryPolicy: {limit: 1, intervalSec: 0}',
      '  - name: both', '    depends: [flaky]', '    logOutput: merged', '    command: sh -c \'echo out; echo err >&2\'',
      '  - name: grant', '    depends: [both]', '    command: sh -c \'echo "${SVC_UPLOAD:-no grant in the step env}"\'', '    output: SEEN',
    ].join('\n'));
    const id = await start(srv, 'chain');
    const run = await finished(srv, 'chain', id);
    expect(run.statusLabel).toBe('succeeded');
    expect(await log('chain', id, 'first', 'stdout')).toBe('alpha');
    expect(await log('chain', id, 'first', 'stderr')).toBe('to stderr');
    expect(await log('chain', id, 'flaky', 'stdout')).toBe('try alpha\ntry alpha');
    expect(await log('chain', id, 'both', 'stdout')).toMatch(/^(out\nerr|err\nout)$/);
    expect((await srv.get(`/dag-runs/chain/${id}/outputs`)).body.outputs).toMatchObject({ a: 'alpha', seen: 'no grant in the step env' });
    const stored = await keys('team-a/runs/');
    expect(stored.some((k) => /\/logs\/[^/]+\.out\/\d{13}-\d{10}-[0-9a-f]{8}$/.test(k))).toBe(true);
    expect(stored.some((k) => /\/logs\/[^/]+\.results\/[^/]+\.json$/.test(k))).toBe(true);
    expect(stored.some((k) => k.endsWith('/outputs.json'))).toBe(true);
    expect(existsSync(join(srv.dataDir, 'runs'))).toBe(false);
    // Each execution's Secret (its grant) goes once the execution is harvested.
    await eventually(async () => JSON.parse((await kubectl(['get', 'secrets', '-n', ns, '-l', 'svc.io/component=step', '-o', 'json'])).stdout).items.length === 0 || undefined, 'the executions\' Secrets to go', 20_000);
  }, 120_000);

  test('the step Pod mounts no data volume and gets its grant from its own Secret', async () => {
    srv.dag('slow', ['steps:', '  - name: wait', '    command: sh -c \'echo first; sleep 4; echo second\''].join('\n'));
    const id = await start(srv, 'slow');
    const pod = await eventually(async () => JSON.parse((await kubectl(['get', 'pods', '-n', ns, '-l', 'svc.io/dag=slow', '-o', 'json'])).stdout).items[0], 'the step Pod', 30_000);
    expect(pod.spec.volumes.map((v: { name: string }) => v.name)).toEqual(['svc-entry']);
    const env = pod.spec.containers[0].env.find((e: { name: string }) => e.name === 'SVC_UPLOAD');
    expect(env.valueFrom.secretKeyRef.name).toBe(pod.metadata.name);
    expect(pod.spec.containers[0].command).toContain('--upload-env');
    // Live: the first line is in the bucket while the step still sleeps.
    expect(await eventually(async () => (await log('slow', id, 'wait', 'stdout')) === 'first' || undefined, 'the first line, live', 10_000)).toBe(true);
    const run = await finished(srv, 'slow', id);
    expect(run.statusLabel).toBe('succeeded');
    expect(await log('slow', id, 'wait', 'stdout')).toBe('first\nsecond');
  }, 60_000);

  test('a DAG-level container is refused with the reason', async () => {
    srv.dag('boxed', ['container: {image: alpine}', 'steps:', '  - name: a', '    command: echo hi'].join('\n'));
    const id = await start(srv, 'boxed');
    const run = await finished(srv, 'boxed', id);
    expect(run.statusLabel).toBe('failed');
    const steps = (await srv.get(`/dag-runs/boxed/${id}`)).body.dagRun.nodes;
    expect(JSON.stringify(steps)).toMatch(/DAG-level container runs its steps through the shared data claim/);
  }, 60_000);
}));
