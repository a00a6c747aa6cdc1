/**
 * Contract of the run operations (SPEC 4.4, 4.5, approvals): every answer of the real server, success and
 * documented errors, validated against the document. The queue processor is off (SVC_QUEUE_ENABLED=false)
 * so enqueued runs stay queued for dequeue and the capacity checks.
 */
import { TestServer, eventually } from '../../helpers/server.js';
import { CheckedClient, Contract } from './contract.js';

const t = new TestServer({ SVC_QUEUE_ENABLED: 'false' });
let c: Contract;
let api: CheckedClient;

const ONE = 'steps:\n  - name: greet\n    command: echo hi\n    output: GREETING\n';
const SLOW = 'steps:\n  - name: nap\n    command: sleep 30\n';
const PARENT = 'steps:\n  - name: call\n    call: child\n---\nname: child\nsteps:\n  - name: inner\n    command: echo inner\n';
/** Its call step ends partially_succeeded (6): the child's soft failure. */
const PARTIAL = 'steps:\n  - name: call\n    call: child\n---\nname: child\nsteps:\n  - name: soft\n    command: "false"\n    continueOn: { failure: true }\n  - name: ok\n    command: "true"\n';
const GATE = 'steps:\n  - name: gate\n    type: hitl\n    config:\n      prompt: Go?\n      input: [REASON]\n      required: [REASON]\n  - name: after\n    command: echo $REASON\n    depends: gate\n';
const INLINE = 'name: inline\nmaxActiveRuns: 1\nsteps:\n  - name: s\n    command: "true"\n';

/** The dequeue GET changes state: only a script's request (X-Requested-With) may make it. */
const dequeue = (path: string) => api.req('GET', path, undefined, { 'x-requested-with': 'test' });
const status = async (name: string, id: string) => (await t.get(`/dag-runs/${name}/${id}`)).body?.dagRun;
const until = (name: string, id: string, ...labels: string[]) =>
  eventually(async () => { const r = await status(name, id); return r && labels.includes(r.statusLabel) ? r : undefined; }, `${name}/${id} ${labels.join('|')}`);

beforeAll(async () => {
  t.dag('one', ONE);
  t.dag('slow', SLOW);
  t.dag('parent', PARENT);
  t.dag('partial', PARTIAL);
  t.dag('gate', GATE);
  await t.start();
  c = await Contract.load(t);
  api = new CheckedClient(t, c);
});
afterAll(() => t.stop());

describe('run operations conform to the document', () => {
  test('start, start-sync, detail, list, logs, outputs, sub-DAG runs', async () => {
    const sync = await api.post('/dags/one/start-sync', { timeout: 30, dagRunId: 'sync-1', params: 'A=1' });
    expect(sync.body.dagRun).toMatchObject({ dagRunId: 'sync-1', statusLabel: 'succeeded' });
    const { dagRunId } = (await api.post('/dags/one/start', { dagName: 'renamed' })).body;
    await until('renamed', dagRunId, 'succeeded');
    expect((await api.get('/dag-runs/one/latest')).body.dagRun.dagRunId).toBe('sync-1');
    expect((await api.get('/dag-runs?name=one&status=4&fromDate=0&toDate=253402300799&dagRunId=sync')).body.dagRuns).toHaveLength(1);
    const page = await api.get('/dag-runs?limit=1');
    expect(page.body).toMatchObject({ dagRuns: [expect.any(Object)], nextCursor: expect.any(String) });
    expect((await api.get(`/dag-runs?name=one&limit=1000&cursor=${page.body.nextCursor}`)).body.nextCursor).toBeNull();
    expect((await api.get('/dag-runs/one/sync-1/log?tail=5')).status).toBe(200);
    expect((await api.get('/dag-runs/one/sync-1/steps/greet/log?head=1')).body.content).toContain('hi');
    expect((await api.get('/dag-runs/one/sync-1/steps/greet/log?stream=stderr&offset=1&limit=10')).status).toBe(200);
    expect((await api.get('/dag-runs/one/sync-1/outputs')).body.outputs).toEqual({ greeting: 'hi' });
    const p = await api.post('/dags/parent/start-sync', { timeout: 30 });
    const subs = (await api.get(`/dag-runs/parent/${p.body.dagRun.dagRunId}/sub-dag-runs`)).body.subRuns;
    expect(subs).toHaveLength(1);
    expect((await api.get(`/dag-runs/parent/${p.body.dagRun.dagRunId}/sub-dag-runs/${subs[0].dagRunId}/spec`)).body.name).toBe('child');
    const partial = (await api.post('/dags/partial/start-sync', { timeout: 30 })).body.dagRun;
    expect(partial.nodes[0]).toMatchObject({ status: 6, statusLabel: 'partially_succeeded' });
  });

  test('inline runs and enqueue, dequeue, capacity conflicts', async () => {
    const inline = await api.post('/dag-runs', { spec: INLINE, params: 'X=1' });
    await until('inline', inline.body.dagRunId, 'succeeded');
    const q1 = await api.post('/dag-runs/enqueue', { spec: INLINE, queue: 'q-a' });
    expect((await api.post('/dag-runs/enqueue', { spec: INLINE })).status).toBe(409); // maxActiveRuns 1 reached
    expect((await api.post('/dag-runs', { spec: INLINE, singleton: true })).status).toBe(409);
    expect((await dequeue(`/dag-runs/inline/${q1.body.dagRunId}/dequeue`)).status).toBe(200);
    expect((await dequeue(`/dag-runs/inline/${q1.body.dagRunId}/dequeue`)).status).toBe(404);
    const q2 = await api.post('/dags/one/enqueue', { queue: 'q-b', singleton: true });
    expect((await api.post('/dags/one/enqueue', { singleton: true })).status).toBe(409);
    expect((await dequeue(`/dag-runs/one/${q2.body.dagRunId}/dequeue`)).status).toBe(200);
  });

  test('stop, start-sync timeout and conflicts, retry, reschedule, step status', async () => {
    const { dagRunId } = (await api.post('/dags/slow/start', { dagRunId: 'slow-1' })).body;
    await until('slow', dagRunId, 'running');
    expect((await api.post('/dags/slow/start', { singleton: true })).status).toBe(409);
    expect((await api.post('/dags/slow/start', { dagRunId: 'slow-1' })).status).toBe(409);
    expect((await api.post('/dags/slow/start-sync', { timeout: 5, singleton: true })).status).toBe(409);
    expect((await api.post('/dag-runs/slow/slow-1/retry', {})).status).toBe(400); // already_running
    expect((await api.post('/dag-runs/slow/slow-1/reschedule', {})).status).toBe(409);
    expect((await api.patch('/dag-runs/slow/slow-1/steps/nap/status', { status: 4 })).status).toBe(400);
    expect((await api.post('/dag-runs/slow/slow-1/stop')).body.dagRunId).toBe('slow-1');
    await until('slow', 'slow-1', 'aborted');
    expect((await api.post('/dag-runs/slow/slow-1/stop')).status).toBe(400); // not_running
    const timedOut = await api.post('/dags/slow/start-sync', { timeout: 1, dagRunId: 'slow-2' });
    expect(timedOut.status).toBe(408);
    expect(timedOut.body).toMatchObject({ code: 'timeout', dagRunId: 'slow-2' });
    await api.post('/dag-runs/slow/slow-2/stop');
    await until('slow', 'slow-2', 'aborted');
    expect((await api.post('/dag-runs/one/sync-1/retry', { dagRunId: 'slow-1' })).status).toBe(200);
    expect((await api.post('/dag-runs/one/sync-1/retry', { dagRunId: 'slow-1' })).status).toBe(409);
    await until('one', 'slow-1', 'succeeded');
    expect((await api.post('/dag-runs/one/sync-1/reschedule', { dagRunId: 'again-1' })).body).toEqual({ dagRunId: 'again-1', queued: false });
    await until('one', 'again-1', 'succeeded');
    expect((await api.patch('/dag-runs/one/sync-1/steps/greet/status', { status: 2 })).body.dagRun.statusLabel).toBe('failed');
  });

  test('approve and reject a hitl step', async () => {
    const w = await api.post('/dags/gate/start-sync', { timeout: 30, dagRunId: 'g1' });
    expect(w.body.dagRun.statusLabel).toBe('waiting');
    expect((await api.post('/dag-runs/gate/g1/steps/gate/approve', { inputs: {} })).status).toBe(400); // REASON required
    expect((await api.post('/dag-runs/gate/g1/steps/gate/approve', { inputs: { REASON: 'ok' } })).body).toMatchObject({ stepName: 'gate', statusLabel: 'succeeded' });
    await until('gate', 'g1', 'succeeded');
    await api.post('/dags/gate/start-sync', { timeout: 30, dagRunId: 'g2' });
    expect((await api.post('/dag-runs/gate/g2/steps/gate/reject', { reason: 'no' })).body.statusLabel).toBe('rejected');
    expect((await api.post('/dag-runs/gate/g2/steps/gate/reject', {})).status).toBe(400); // not waiting any more
  });

  test.each([
    ['POST', '/dags/one/start', { params: 1 }], ['POST', '/dags/one/start', { dagRunId: '../x' }], ['POST', '/dags/one/start', '{bad json'],
    ['POST', '/dags/one/start', { params: 'x'.repeat(100_001) }], ['POST', '/dags/one/start-sync', {}], ['POST', '/dags/one/start-sync', { timeout: 86_401 }],
    ['POST', '/dags/one/enqueue', { queue: 'a b' }], ['POST', '/dag-runs', {}], ['POST', '/dag-runs', { spec: 'steps: [[[' }],
    ['POST', '/dag-runs/enqueue', { spec: 7 }], ['GET', '/dag-runs?status=9', undefined], ['GET', '/dag-runs?fromDate=x', undefined],
    ['GET', '/dag-runs?limit=0', undefined], ['GET', '/dag-runs?cursor=not-a-cursor', undefined],
    ['GET', '/dag-runs/..%2Fetc/latest', undefined], ['GET', '/dag-runs/one/a%2Fb', undefined], ['GET', '/dag-runs/one/sync-1/log?limit=10001', undefined],
    ['GET', '/dag-runs/one/sync-1/log?head=1&tail=1', undefined], ['GET', '/dag-runs/one/sync-1/steps/greet/log?stream=both', undefined],
    ['GET', '/dag-runs/one/sync-1/steps/..%2F..%2Fx/log', undefined], ['PATCH', '/dag-runs/one/sync-1/steps/greet/status', { status: 6 }],
    ['POST', '/dag-runs/one/sync-1/retry', { stepName: 5 }], ['POST', '/dag-runs/one/sync-1/reschedule', { dagName: '../x' }],
    ['GET', '/dag-runs/parent/latest/sub-dag-runs/..%2Fx/spec', undefined], ['POST', '/dag-runs/gate/g1/steps/gate/approve', { inputs: 'x' }],
    ['POST', '/dag-runs/gate/g1/steps/gate/reject', { reason: 'x'.repeat(4097) }], ['POST', '/dag-runs/one/sync-1/steps/greet/approve', {}],
  ])('%s %s is a documented 400', async (method, path, body) => {
    const r = await api.req(method, path, body);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: 'bad_request' });
  });

  test.each([
    ['POST', '/dags/nope/start'], ['POST', '/dags/nope/start-sync'], ['POST', '/dags/nope/enqueue'], ['GET', '/dag-runs/one/nope'],
    ['POST', '/dag-runs/one/nope/stop'], ['POST', '/dag-runs/one/nope/retry'], ['POST', '/dag-runs/one/nope/reschedule'],
    ['GET', '/dag-runs/one/nope/dequeue'], ['GET', '/dag-runs/one/nope/log'], ['GET', '/dag-runs/one/sync-1/steps/nope/log'],
    ['GET', '/dag-runs/one/nope/outputs'], ['GET', '/dag-runs/one/nope/sub-dag-runs'], ['GET', '/dag-runs/one/sync-1/sub-dag-runs/nope/spec'],
    ['PATCH', '/dag-runs/one/sync-1/steps/nope/status'], ['POST', '/dag-runs/gate/g1/steps/nope/approve'], ['POST', '/dag-runs/gate/nope/steps/gate/reject'],
  ])('%s %s is a documented 404', async (method, path) => {
    const r = await api.req(method, path, method === 'GET' ? undefined : { timeout: 5, status: 4 }, { 'x-requested-with': 'test' });
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 404, code: 'not_found' });
  });

  test('a body over 5 MB is a documented 413', async () => {
    const r = await api.post('/dags/one/start', { params: 'x'.repeat(6 * 1024 * 1024) });
    expect(r.status).toBe(413);
  });

  test('every run operation answered a success, and its documented 404/408/409 were seen', () => {
    const runs = (op: { tags: string[] }) => op.tags.includes('runs');
    expect(c.unexercised(runs)).toEqual([]);
    expect(c.unexercised(runs, (op) => Object.keys(op.responses).filter((s) => ['404', '408', '409'].includes(s)))).toEqual([]);
  });
});
