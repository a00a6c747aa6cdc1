/**
 * Issue 20 item 1: sub-DAGs that call themselves. A cycle the names show is refused before a run; one
 * hidden behind a variable ends at the nesting limit (SVC_MAX_CALL_DEPTH) with the chain named; a stop of
 * a run stops the runs below it.
 */
import { err, eventually, runsServer, waitRun } from './helpers.js';

const srv = runsServer({ SVC_MAX_CALL_DEPTH: '3' });
beforeAll(async () => {
  srv.dag('selfie', 'steps:\n  - name: again\n    call: selfie\n');
  srv.dag('ping', 'steps:\n  - name: to-pong\n    call: pong\n');
  srv.dag('pong', 'steps:\n  - {name: work, command: "true"}\n  - {name: to-ping, call: ping}\n');
  srv.dag('caller', 'steps:\n  - name: into-cycle\n    call: ping\n');
  srv.dag('local', 'steps:\n  - name: in\n    call: inner\n---\nname: inner\nsteps:\n  - name: loop\n    call: inner\n');
  srv.dag('leaf', 'steps:\n  - {name: s, command: "true"}\n');
  srv.dag('twice', 'steps:\n  - {name: a, call: leaf}\n  - {name: b, call: leaf}\n');
  // The target comes from a parameter: no check before the run can see the recursion.
  srv.dag('dyn', 'params: [TARGET=dyn]\nsteps:\n  - name: again\n    call: ${TARGET}\n');
  srv.dag('slowdyn', 'params: [TARGET=slowdyn]\nsteps:\n  - name: pause\n    command: sleep 1\n  - name: again\n    call: ${TARGET}\n');
  await srv.start();
});
afterAll(() => srv.stop());

/** The run and every run below it, through the sub-runs of its nodes, parents first. */
async function tree(name: string, id: string): Promise<any[]> {
  const d = (await srv.get(`/dag-runs/${name}/${id}`)).body.dagRun;
  const subs = (d.nodes as any[]).flatMap((n) => (n.subRuns ?? []) as any[]);
  const below = await Promise.all(subs.map((s) => tree(s.name, s.dagRunId)));
  return [d, ...below.flat()];
}

describe('a call cycle the names show is refused before any run', () => {
  test.each([
    ['selfie', 'selfie -> selfie'],
    ['ping', 'ping -> pong -> ping'],
    ['caller', 'caller -> ping -> pong -> ping'],
    ['local', 'local -> inner -> inner'],
  ])('%s: 400 naming the chain %s, and no run', async (dag, chain) => {
    const r = await srv.post(`/dags/${dag}/start`, { dagRunId: `${dag}-1` });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('bad_request'));
    expect(r.body.message).toContain(`call cycle: ${chain}`);
    expect((await srv.get(`/dag-runs/${dag}/${dag}-1`)).status).toBe(404);
  });

  test('calling one DAG twice is no cycle', async () => {
    expect((await srv.post('/dags/twice/start', { dagRunId: 'twice-1' })).status).toBe(200);
    await waitRun(srv, 'twice', 'twice-1', 'succeeded');
  });
});

describe('the same cycles are validation errors wherever a DAG is written or checked', () => {
  test('POST /dags/validate names the cycle; a call of another DAG that is fine is valid', async () => {
    const bad = await srv.post('/dags/validate', { name: 'selfie', spec: 'steps:\n  - name: again\n    call: selfie\n' });
    expect([bad.status, bad.body.valid]).toEqual([200, false]);
    expect(bad.body.errors.join('\n')).toContain('call cycle: selfie -> selfie');
    const good = await srv.post('/dags/validate', { name: 'fresh', spec: 'steps:\n  - name: a\n    call: leaf\n' });
    expect([good.body.valid, good.body.errors]).toEqual([true, []]);
  });

  test('GET /dags lists each DAG of a cycle with the cycle in its errors; the others stay valid', async () => {
    const dags = (await srv.get('/dags')).body.dags as { fileName: string; errors: string[] }[];
    const errorsOf = (f: string) => dags.find((d) => d.fileName === f)?.errors;
    expect(errorsOf('selfie')).toEqual([expect.stringContaining('call cycle: selfie -> selfie')]);
    expect(errorsOf('pong')).toEqual([expect.stringContaining('call cycle: pong -> ping -> pong')]);
    expect(errorsOf('caller')).toEqual([expect.stringContaining('call cycle: caller -> ping -> pong -> ping')]);
    expect(errorsOf('twice')).toEqual([]);
    expect(errorsOf('dyn')).toEqual([]);
  });

  test('POST /dags refuses a DAG that calls itself; PUT spec that closes a cycle saves nothing', async () => {
    const created = await srv.post('/dags', { name: 'ouroboros', spec: 'steps:\n  - name: x\n    call: ouroboros\n' });
    expect(created.status).toBe(400);
    expect(JSON.stringify(created.body)).toContain('call cycle: ouroboros -> ouroboros');
    expect((await srv.get('/dags/ouroboros')).status).toBe(404);
    const before = (await srv.get('/dags/leaf/spec')).body.spec;
    const put = await srv.req('PUT', '/dags/leaf/spec', { spec: 'steps:\n  - {name: s, call: twice}\n' });
    expect(put.status).toBe(200);
    expect(put.body.errors.join('\n')).toContain('call cycle: leaf -> twice -> leaf');
    expect((await srv.get('/dags/leaf/spec')).body.spec).toBe(before);
  });
});

test('recursion through a variable stops at the depth limit, the chain named; the runs above fail', async () => {
  expect((await srv.post('/dags/dyn/start', { dagRunId: 'dyn-1' })).status).toBe(200);
  await waitRun(srv, 'dyn', 'dyn-1', 'failed');
  const runs = await tree('dyn', 'dyn-1');
  expect(runs).toHaveLength(4);
  expect(runs.map((r) => r.statusLabel)).toEqual(['failed', 'failed', 'failed', 'failed']);
  const deepest = runs[3].nodes[0];
  expect(deepest.error).toBe('sub-DAG calls nest deeper than 3 (SVC_MAX_CALL_DEPTH): dyn -> dyn -> dyn -> dyn -> dyn');
  expect(deepest.subRuns ?? []).toEqual([]);
}, 60_000);

test('a stop of the root stops every run below it', async () => {
  await srv.post('/dags/slowdyn/start', { dagRunId: 'slow-1', params: 'TARGET=slowdyn' });
  await eventually(async () => (await tree('slowdyn', 'slow-1')).length >= 2 || undefined, 'a sub-run', 30_000);
  expect((await srv.post('/dag-runs/slowdyn/slow-1/stop')).status).toBe(200);
  await waitRun(srv, 'slowdyn', 'slow-1', 'aborted');
  const runs = await eventually(async () => {
    const t = await tree('slowdyn', 'slow-1');
    return t.every((r) => r.statusLabel === 'aborted') && t;
  }, 'every run aborted', 30_000);
  expect(runs.length).toBeGreaterThanOrEqual(2);
  expect(runs.length).toBeLessThanOrEqual(4);
}, 60_000);
