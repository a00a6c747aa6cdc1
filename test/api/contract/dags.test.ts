/** Contract of the DAG operations (SPEC 4.3): real answers, success and documented errors, against the document. */
import { TestServer, eventually } from '../../helpers/server.js';
import { CheckedClient, Contract } from './contract.js';

const t = new TestServer();
let c: Contract;
let api: CheckedClient;

const HELLO = 'description: says hello\ntags: env=prod,team\nparams:\n  - WHO: world\nsteps:\n  - name: hello\n    command: echo hello $WHO\n';

beforeAll(async () => {
  t.dag('hello', HELLO);
  t.dag('broken', 'steps: [[[');
  await t.start();
  c = await Contract.load(t);
  api = new CheckedClient(t, c);
});
afterAll(() => t.stop());

describe('DAG operations conform to the document', () => {
  test('list, search, tags, validate', async () => {
    expect((await api.get('/dags')).status).toBe(200);
    expect((await api.get('/dags?page=1&perPage=1000&name=hel&tags=env%3Dprod')).body.dags).toHaveLength(1);
    expect((await api.get('/dags?page=9')).body.dags).toEqual([]);
    expect((await api.get('/dags/search?q=hello')).body.results.length).toBeGreaterThan(0);
    expect((await api.get('/dags/tags')).body.tags).toEqual(['env=prod', 'team']);
    expect((await api.post('/dags/validate', { spec: HELLO })).body.valid).toBe(true);
    expect((await api.post('/dags/validate', { spec: 'steps: [[[' })).body).toMatchObject({ valid: false, dag: null });
    expect((await api.post('/dags/validate', { spec: 'steps:\n  - name: a\n    depends: nope\n' })).body.valid).toBe(false);
  });

  test.each([
    ['GET', '/dags?perPage=1001', undefined],
    ['GET', '/dags?page=0', undefined],
    ['GET', '/dags?tags=%21', undefined],
    ['GET', '/dags/search', undefined],
    ['POST', '/dags/validate', {}],
    ['POST', '/dags', { name: 'a/b' }],
    ['POST', '/dags', { name: 'bad-spec', spec: 'steps: [[[' }],
    ['POST', '/dags', '{"name": '],
    ['POST', '/dags/hello/rename', { newFileName: '../x' }],
    ['POST', '/dags/hello/suspend', { suspend: 'yes' }],
    ['PUT', '/dags/hello/spec', { spec: 42 }],
    ['GET', '/dags/..%2Fetc', undefined],
    ['GET', '/dags/a%00b/spec', undefined],
    ['GET', '/dags/hello/dag-runs?limit=0', undefined],
    ['GET', '/dags/hello/dag-runs/..%2Fx', undefined],
  ])('%s %s is a documented 400', async (method, path, body) => {
    const r = await api.req(method, path, body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });

  test.each([
    ['GET', '/dags/nope'], ['DELETE', '/dags/nope'], ['GET', '/dags/nope/spec'], ['PUT', '/dags/nope/spec'],
    ['POST', '/dags/nope/rename'], ['POST', '/dags/nope/suspend'], ['GET', '/dags/nope/dag-runs'],
    ['GET', '/dags/nope/dag-runs/latest'], ['GET', '/dags/hello/dag-runs/no-such-run'], ['POST', '/dags/nope/stop-all'],
  ])('%s %s is a documented 404', async (method, path) => {
    const body = { spec: HELLO, newFileName: 'other', suspend: true };
    const r = await api.req(method, path, method === 'GET' || method === 'DELETE' ? undefined : body);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  test('create, detail, spec, put, suspend, rename, delete', async () => {
    expect((await api.post('/dags', { name: 'made' })).status).toBe(201);
    expect((await api.post('/dags', { name: 'made2', spec: HELLO })).status).toBe(201);
    expect((await api.post('/dags', { name: 'made' })).status).toBe(409);
    expect((await api.get('/dags/hello')).body.dag.name).toBe('hello');
    expect((await api.get('/dags/broken')).status).toBe(200);
    expect((await api.get('/dags/hello/spec')).body.spec).toBe(HELLO);
    expect((await api.put('/dags/made/spec', { spec: 'steps:\n  - name: a\n    depends: nope\n' })).body.errors.length).toBeGreaterThan(0);
    expect((await api.put('/dags/made/spec', { spec: HELLO })).body.errors).toEqual([]);
    expect((await api.post('/dags/made/suspend', { suspend: true })).status).toBe(200);
    expect((await api.post('/dags/made/rename', { newFileName: 'made2' })).status).toBe(409);
    expect((await api.post('/dags/made/rename', { newFileName: 'renamed' })).status).toBe(200);
    expect((await api.del('/dags/renamed')).status).toBe(204);
    expect((await api.get('/dags')).body.errors.length).toBeGreaterThan(0); // broken.yaml is reported
  });

  test('runs of a DAG: history with grid, one run, stop-all', async () => {
    const { dagRunId } = (await api.post('/dags/hello/start', {})).body;
    await eventually(async () => (await t.get(`/dag-runs/hello/${dagRunId}`)).body.dagRun.status === 4, 'run to succeed');
    const h = await api.get('/dags/hello/dag-runs?limit=5');
    expect(h.body.gridData[0]).toEqual({ name: 'hello', history: [4] });
    expect((await api.get(`/dags/hello/dag-runs/${dagRunId}`)).body.dagRun.nodes).toHaveLength(1);
    expect((await api.get('/dags/hello/dag-runs/latest')).body.dagRun.dagRunId).toBe(dagRunId);
    expect((await api.post('/dags/hello/stop-all')).body.errors).toEqual([]);
  });

  test('every DAG operation answered a success, and its documented 404/409 were seen', () => {
    const dags = (op: { tags: string[] }) => op.tags.includes('dags');
    expect(c.unexercised(dags)).toEqual([]);
    expect(c.unexercised(dags, (op) => Object.keys(op.responses).filter((s) => ['404', '409'].includes(s)))).toEqual([]);
  });
});
