/**
 * `container` on the kubernetes backend (SPEC 2.5): a DAG-level container is one Pod for the run, its
 * agent (the svc entry binary) running every step inside it with separate, durable logs and exit codes,
 * removed at the end unless keepContainer; a step-level container is that step's Pod image.
 */
import { eventually } from '../helpers/server.js';
import { describeCluster } from './env.js';
import { finished, kubeServer, podsOf } from './servers.js';

describeCluster('container DAGs and steps on kubernetes', () => {
  const srv = kubeServer();
  let ns = '';
  beforeAll(async () => {
    await srv.start();
    ns = srv.server.namespace!;
  });
  afterAll(() => srv.stop());

  test('a DAG-level container: one Pod runs every step; outputs, logs and exit codes as usual; gone at the end', async () => {
    srv.dag('boxed', [
      'container:', '  image: debian:stable-slim', '  env: [GREETING=hello]',
      'steps:',
      '  - name: first', '    command: sh -c \'echo "$GREETING from $HOSTNAME"; echo warn >&2\'', '    output: FIRST',
      '  - name: second', '    command: sh -c \'echo "second sees $FIRST in $HOSTNAME"; exit 3\'', '    depends: [first]', '    continueOn: { exitCode: [3] }',
      '  - name: third', '    depends: [second]', '    script: |', '      echo "script in $HOSTNAME"',
    ].join('\n'));
    const id = (await srv.post('/dags/boxed/start', {})).body.dagRunId as string;
    const during = await eventually(async () => (await podsOf(ns, `svc.io/component=run-container,svc.io/dag-run=${id}`))[0], 'the run container Pod', 30_000);
    const run = await finished(srv, 'boxed', id);
    // The step that exited 3 continued: the run partially succeeded (SPEC 3.1).
    expect(run.statusLabel).toBe('partially_succeeded');
    const host = during.metadata.name;
    const log = async (step: string, stream = 'stdout') => (await srv.get(`/dag-runs/boxed/${id}/steps/${step}/log?stream=${stream}`)).body.content;
    expect(await log('first')).toBe(`hello from ${host}`);
    expect(await log('first', 'stderr')).toBe('warn');
    expect(await log('second')).toBe(`second sees hello from ${host} in ${host}`);
    expect(run.nodes.find((n: any) => n.step.name === 'second').error).toMatch(/exit status 3/);
    expect(await log('third')).toBe(`script in ${host}`);
    expect(await podsOf(ns, `svc.io/component=step,svc.io/dag-run=${id}`)).toEqual([]);
    await eventually(async () => (await podsOf(ns, `svc.io/component=run-container,svc.io/dag-run=${id}`)).length === 0 || undefined, 'the run container Pod to be removed');
  });

  test('keepContainer keeps the run Pod; stop reaches a step running inside it', async () => {
    srv.dag('kept-box', [
      'container:', '  image: debian:stable-slim', '  keepContainer: true',
      'steps:', "  - name: wait", "    command: sh -c 'trap \"echo stopped; exit 5\" TERM; echo up; sleep 60 & wait'",
    ].join('\n'));
    const id = (await srv.post('/dags/kept-box/start', {})).body.dagRunId as string;
    await eventually(async () => ((await srv.get(`/dag-runs/kept-box/${id}/steps/wait/log?stream=stdout`)).body.content as string | undefined)?.includes('up') || undefined, 'the step to start');
    expect((await srv.post(`/dag-runs/kept-box/${id}/stop`)).status).toBe(200);
    const run = await finished(srv, 'kept-box', id);
    expect(run.statusLabel).toBe('aborted');
    expect((await srv.get(`/dag-runs/kept-box/${id}/steps/wait/log?stream=stdout`)).body.content).toBe('up\nstopped');
    await new Promise((r) => setTimeout(r, 500));
    const kept = await podsOf(ns, `svc.io/component=run-container,svc.io/dag-run=${id}`);
    expect(kept).toHaveLength(1);
    expect(kept[0].metadata.deletionTimestamp).toBeUndefined();
  });

  test('a step-level container runs as that step\'s own Pod, with the container\'s env', async () => {
    srv.dag('imaged', ['steps:', '  - name: in-alpine', '    container: { image: "alpine:3.20", env: [FROM=container] }', '    command: sh -c \'echo "from $FROM"\''].join('\n'));
    const id = (await srv.post('/dags/imaged/start', {})).body.dagRunId as string;
    expect((await finished(srv, 'imaged', id)).statusLabel).toBe('succeeded');
    expect((await srv.get(`/dag-runs/imaged/${id}/steps/in-alpine/log?stream=stdout`)).body.content).toBe('from container');
  });
});
