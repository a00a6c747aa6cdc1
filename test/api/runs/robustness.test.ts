/**
 * Inputs that make process creation fail synchronously (a NUL byte in the environment) end the run, never the
 * server. In `fan`, the backquote substitution cannot start, gives an empty list of items, and the step succeeds.
 */
import { TestServer, eventually } from '../../helpers/server.js';

describe('a step that cannot be spawned', () => {
  const srv = new TestServer();
  beforeAll(async () => {
    await srv.start();
    srv.dag('plain', 'params:\n  - P: x\nsteps:\n  - name: s\n    command: echo "$P"\n');
    srv.dag('fan', [
      'params:', '  - P: x', 'env:', '  - X: "`echo ${P}`"', 'steps:',
      '  - name: each', '    call: child', '    parallel: ${X}', '---', 'name: child', 'steps:', '  - name: c', '    command: "true"',
    ].join('\n'));
  });
  afterAll(() => srv.stop());

  test.each([['plain', 'failed'], ['fan', 'succeeded']])('%s: a NUL byte in params ends the run (%s); the server keeps serving', async (dag, label) => {
    const r = await srv.post(`/dags/${dag}/start`, { params: 'P=a\u0000b' });
    expect(r.status).toBe(200);
    const done = await eventually(async () => {
      const d = (await srv.get(`/dag-runs/${dag}/${r.body.dagRunId}`)).body.dagRun;
      return d && [2, 3, 4].includes(d.status) ? d : undefined;
    }, 'the run to end');
    expect(done.statusLabel).toBe(label);
    expect((await srv.get('/health')).body.status).toBe('healthy');
  });
});
