/**
 * `svc server --backend kubernetes` on the test bed, as people use it: Dags applied with kubectl show in
 * the REST API and Dags made through REST show in kubectl; two replicas share the state; a started run is a
 * DagRun that waits, visibly, for the operator; the real binary starts from the command line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, type TestServer } from '../helpers/server.js';
import { kubeServer as apiOnly } from './servers.js';
import { cluster, kubectl } from '../testbed/helpers.js';
import { describeCluster } from './env.js';

/** No operator: these tests look at what the API server alone does. */
const kubeServer = (env: Record<string, string> = {}): TestServer => apiOnly({ SVC_TEST_OPERATOR: 'off', ...env });

describeCluster('the REST API over Dag and DagRun resources', () => {
  const one = kubeServer();
  let two: TestServer;
  let ns = '';
  beforeAll(async () => {
    await one.start();
    ns = one.server.namespace!;
    two = kubeServer({ SVC_NAMESPACE: ns });
    await two.start();
  });
  afterAll(async () => { await two.stop(); await one.stop(); });

  test('kubectl apply shows in GET /dags; POST /dags shows in kubectl get dag; text and fileName round-trip', async () => {
    const manifest = new URL('../../examples/kubernetes/hello.yaml', import.meta.url).pathname;
    expect((await kubectl(['apply', '-n', ns, '-f', manifest])).stderr).toBe('');
    await eventually(async () => (await one.get('/dags?name=hello')).body.dags.length === 1 || undefined, 'hello in GET /dags');
    const spec = 'description: made through REST  # a comment\nsteps:\n  - name: a\n    command: echo a\n';
    expect((await one.post('/dags', { name: 'Made_Here', spec })).status).toBe(201);
    const got = JSON.parse((await kubectl(['get', 'dags', '-n', ns, '-o', 'json'])).stdout).items
      .find((d: { metadata: { annotations?: Record<string, string> } }) => d.metadata.annotations?.['svc.io/file-name'] === 'Made_Here');
    expect(got.spec).toEqual({ description: 'made through REST', steps: [{ name: 'a', command: 'echo a' }] });
    expect((await two.get('/dags/Made_Here/spec')).body.spec).toBe(spec);
  });

  test('two replicas: a write through one is read through the other; concurrent PUTs of one Dag both answer', async () => {
    expect((await one.post('/dags', { name: 'shared', spec: 'steps:\n  - command: echo 0\n' })).status).toBe(201);
    const puts = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? one : two).req('PUT', '/dags/shared/spec', { spec: `steps:\n  - command: echo ${i + 1}\n` })));
    for (const r of puts) expect([200, 409]).toContain(r.status);
    expect(puts.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    const a = (await one.get('/dags/shared/spec')).body.spec;
    expect((await two.get('/dags/shared/spec')).body.spec).toBe(a);
  });

  test('two replicas: concurrent singleton starts through both admit exactly one run', async () => {
    expect((await one.post('/dags', { name: 'once', spec: 'steps:\n  - command: echo 1\n' })).status).toBe(201);
    await eventually(async () => (await two.get('/dags/once')).status === 200 || undefined, 'the Dag on the second replica');
    for (let round = 0; round < 3; round += 1) {
      const dagName = `once-${round}`;
      const starts = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).post('/dags/once/start', { singleton: true, dagName })));
      const ok = starts.filter((r) => r.status === 200);
      expect(ok).toHaveLength(1);
      for (const r of starts.filter((x) => x.status !== 200)) expect([r.status, r.body.code]).toEqual([409, 'already_running']);
      const stored = JSON.parse((await kubectl(['get', 'dagruns', '-n', ns, '-l', `svc.io/dag=${dagName}`, '-o', 'json'])).stdout).items;
      expect(stored).toHaveLength(1);
    }
    // The Lease is free again, and records the last admitted run's version for the next holder.
    const lease = JSON.parse((await kubectl(['get', 'lease', 'svc-admission', '-n', ns, '-o', 'json'])).stdout);
    expect(lease.spec.holderIdentity).toBeUndefined();
    expect(Number(lease.metadata.annotations['svc.io/runs-written'])).toBeGreaterThan(0);
  });

  test('a started run is a DagRun in kubectl get dagruns, not started, waiting for the operator', async () => {
    const r = await one.post('/dags/hello/start', { dagRunId: 'first-run' });
    expect(r.status).toBe(200);
    const table = await kubectl(['get', 'dagruns', '-n', ns]);
    expect(table.stdout).toMatch(/hello\s+not_started\s+0\/2/);
    const run = (await two.get('/dag-runs/hello/first-run')).body.dagRun;
    expect(run).toMatchObject({ dagRunId: 'first-run', status: 0, statusLabel: 'not_started' });
    expect((await two.get('/dag-runs?name=hello')).body.dagRuns.map((x: { dagRunId: string }) => x.dagRunId)).toEqual(['first-run']);
  });
});

describeCluster('svc server --backend kubernetes when the cluster cannot serve it', () => {
  test('an API server that cannot be reached: the server does not start, and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-kubeconfig-'));
    const kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, [
      'apiVersion: v1', 'kind: Config', 'current-context: gone',
      'clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
      'users: [{name: u, user: {token: t}}]', 'contexts: [{name: gone, context: {cluster: gone, user: u, namespace: team-a}}]', '',
    ].join('\n'));
    const bin = new URL('../../bin/svc.js', import.meta.url).pathname;
    const proc = spawn(process.execPath, [bin, 'server', '--backend', 'kubernetes'], {
      env: { PATH: process.env.PATH, HOME: dir, SVC_PORT: '0', SVC_KUBECONFIG: kubeconfig, SVC_DATA_DIR: join(dir, 'data') }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    proc.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    expect(await new Promise((r) => proc.once('exit', r))).toBe(1);
    expect(err).toMatch(/service_unavailable.*cannot serve namespace team-a.*cannot be reached/);
  });

  test('GET /health answers ok while the API server answers', async () => {
    const srv = kubeServer();
    await srv.start();
    try {
      expect((await srv.get('/health')).body).toMatchObject({ status: 'healthy' });
    } finally {
      await srv.stop();
    }
  });
});

describeCluster('svc server --backend kubernetes from the command line', () => {
  test('starts, says where it listens and which namespace it serves, answers, stops on SIGTERM', async () => {
    const bin = new URL('../../bin/svc.js', import.meta.url).pathname;
    const proc = spawn(process.execPath, [bin, 'server', '--backend', 'kubernetes', '--namespace', 'default'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_PORT: '0', SVC_KUBECONFIG: cluster().kubeconfig, SVC_DATA_DIR: '/tmp/svc-kube-cli' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    const url = await eventually(async () => /listening on (\S+) \(kubernetes namespace default\)/.exec(out)?.[1], 'the server to listen');
    expect((await fetch(`${url}/api/v2/dags`)).status).toBe(200);
    proc.kill('SIGTERM');
    expect(await new Promise((r) => proc.once('exit', r))).toBe(0);
  });
});
