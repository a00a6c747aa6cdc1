/** Runs seen from a DAG: GET /dags/{f}/dag-runs (gridData), /dag-runs/{id}, POST stop-all, latestDAGRun. */
import { eventually, TestServer } from '../../helpers/server.js';

const srv = new TestServer();
beforeAll(() => srv.start());
afterAll(() => srv.stop());

async function start(fileName: string, dagRunId: string): Promise<void> {
  const r = await srv.post(`/dags/${fileName}/start`, { dagRunId });
  if (r.status !== 200) throw new Error(`start failed: ${r.status} ${r.text}`);
}

const statusOf = async (fileName: string, id: string) => (await srv.get(`/dags/${fileName}/dag-runs/${id}`)).body?.dagRun?.status;
const finished = (fileName: string, id: string) => eventually(async () => [2, 3, 4, 6].includes(await statusOf(fileName, id)), `${id} to finish`);

describe('run history of a DAG', () => {
  beforeAll(async () => {
    srv.dag('hist', 'name: hist-dag\nsteps:\n  - name: a\n    command: "true"\n  - name: b\n    command: exit 1\n  - name: c\n    command: echo c\n');
    await start('hist', 'run1');
    await finished('hist', 'run1');
    srv.dag('hist', 'name: hist-dag\nsteps:\n  - name: a\n    command: "true"\n  - name: n\n    command: echo new\n');
    await start('hist', 'run2');
    await finished('hist', 'run2');
  });

  test('dagRuns newest first, with gridData rows per step and one status per listed run', async () => {
    const r = await srv.get('/dags/hist/dag-runs');
    expect(r.status).toBe(200);
    expect(r.body.dagRuns.map((d: any) => [d.dagRunId, d.name, d.statusLabel])).toEqual([['run2', 'hist-dag', 'succeeded'], ['run1', 'hist-dag', 'failed']]);
    expect(r.body.dagRuns[0]).toEqual(expect.objectContaining({ rootDAGRunId: 'run2', parentDAGRunId: '', queuedAt: expect.any(String), params: '' }));
    expect(r.body.gridData).toEqual([
      { name: 'a', history: [4, 4] },
      { name: 'n', history: [4, 0] },
      { name: 'b', history: [0, 2] },
      { name: 'c', history: [0, 3] },
    ]);
  });

  test('limit', async () => {
    const r = await srv.get('/dags/hist/dag-runs?limit=1');
    expect(r.body.dagRuns.map((d: any) => d.dagRunId)).toEqual(['run2']);
    expect(r.body.gridData[0].history).toHaveLength(1);
    expect((await srv.get('/dags/hist/dag-runs?limit=0')).status).toBe(400);
    expect((await srv.get('/dags/hist/dag-runs?limit=1001')).status).toBe(400);
  });

  test('one run: the detail with nodes; latest is allowed', async () => {
    const r = await srv.get('/dags/hist/dag-runs/run1');
    expect(r.status).toBe(200);
    expect(r.body.dagRun).toMatchObject({ dagRunId: 'run1', name: 'hist-dag', status: 2, statusLabel: 'failed' });
    expect(r.body.dagRun.nodes.map((n: any) => [n.step.name, n.statusLabel])).toEqual([['a', 'succeeded'], ['b', 'failed'], ['c', 'aborted']]);
    const latest = await srv.get('/dags/hist/dag-runs/latest');
    expect(latest.body.dagRun.dagRunId).toBe('run2');
  });

  test('latestDAGRun of the list and the detail is the newest run', async () => {
    const list = await srv.get('/dags?name=hist');
    expect(list.body.dags[0].latestDAGRun).toMatchObject({ dagRunId: 'run2', status: 4, statusLabel: 'succeeded', name: 'hist-dag' });
    expect((await srv.get('/dags/hist')).body.latestDAGRun.dagRunId).toBe('run2');
  });

  test.each([
    ['/dags/hist/dag-runs/nope', 404, 'not_found'],
    ['/dags/ghost/dag-runs/run1', 404, 'not_found'],
    ['/dags/ghost/dag-runs', 404, 'not_found'],
    ['/dags/hist/dag-runs/..%2F..%2Fx', 400, 'bad_request'],
    ['/dags/hist/dag-runs/a%00', 400, 'bad_request'],
    [`/dags/hist/dag-runs/${'r'.repeat(65)}`, 400, 'bad_request'],
    ['/dags/hist/dag-runs?limit=x', 400, 'bad_request'],
  ])('GET %s -> %i %s', async (path, status, code) => {
    const r = await srv.get(path);
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
  });

  test('a DAG that never ran: empty history, gridData rows of its steps', async () => {
    srv.dag('never', 'steps:\n  - name: only\n    command: echo\n');
    expect((await srv.get('/dags/never/dag-runs')).body).toEqual({ dagRuns: [], gridData: [{ name: 'only', history: [] }] });
    expect((await srv.get('/dags/never/dag-runs/latest')).status).toBe(404);
  });
});

describe('POST /dags/{fileName}/stop-all', () => {
  test('stops every running run of the DAG: 200 {errors: []}', async () => {
    srv.dag('long', 'maxActiveRuns: 2\nsteps:\n  - name: wait\n    command: sleep 30\n');
    await start('long', 'l1');
    await start('long', 'l2');
    for (const id of ['l1', 'l2']) await eventually(async () => (await statusOf('long', id)) === 1, `${id} running`);
    const r = await srv.post('/dags/long/stop-all');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ errors: [] });
    for (const id of ['l1', 'l2']) await eventually(async () => (await statusOf('long', id)) === 3, `${id} aborted`);
  });

  test('nothing running: 200 with no errors; unknown DAG: 404 not_found', async () => {
    srv.dag('idle', 'steps:\n  - command: echo\n');
    expect((await srv.post('/dags/idle/stop-all')).body).toEqual({ errors: [] });
    const r = await srv.post('/dags/ghost/stop-all');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });
});
