/**
 * Contract of the system and webhook operations (SPEC 4.1, 4.7, 4.8) against the document. The server has
 * a static token (SVC_AUTH_TOKEN): private metrics answer with it and 401 without.
 */
import { TestServer, eventually } from '../../helpers/server.js';
import { CheckedClient, Contract } from './contract.js';

const TOKEN = 'contract-static-token-0123456789';
const t = new TestServer({ SVC_AUTH_TOKEN: TOKEN });
let c: Contract;
let anon: CheckedClient;
let api: CheckedClient;

beforeAll(async () => {
  t.dag('hooked', 'steps:\n  - name: show\n    command: echo "$WEBHOOK_PAYLOAD"\n');
  await t.start();
  c = await Contract.load(t);
  anon = new CheckedClient(t, c);
  api = anon.withHeaders({ authorization: `Bearer ${TOKEN}` });
});
afterAll(() => t.stop());

describe('system operations conform to the document', () => {
  test('health, openapi, metrics, resource history, workers', async () => {
    expect((await anon.get('/health')).body.status).toBe('healthy');
    expect((await anon.get('/openapi.json')).status).toBe(200);
    expect((await anon.get('/metrics')).status).toBe(401);
    expect((await api.get('/metrics')).text).toContain('svc_uptime_seconds');
    expect((await api.get('/services/resources/history?duration=30m')).status).toBe(200);
    expect((await api.get('/services/resources/history?duration=1d')).status).toBe(400);
    // Embedded: this process is the one worker; kubernetes: the Nodes.
    const workers = (await api.get('/workers')).body.workers.map((w: { id: string }) => w.id);
    expect(workers).toEqual(t.kube ? expect.arrayContaining(['node-a', 'node-b']) : ['local']);
  });
});

describe('webhook operations conform to the document', () => {
  let token = '';

  test('create, read, list, trigger, toggle, regenerate, delete', async () => {
    const created = await api.post('/dags/hooked/webhook');
    expect(created.status).toBe(201);
    token = created.body.token;
    expect((await api.post('/dags/hooked/webhook')).status).toBe(409);
    expect((await api.get('/dags/hooked/webhook')).body.enabled).toBe(true);
    expect((await api.get('/webhooks')).body.webhooks).toHaveLength(1);
    const hook = anon.withHeaders({ authorization: `Bearer ${token}` });
    const run = await hook.post('/webhooks/hooked', { dagRunId: 'wh-1', payload: { a: 1 } });
    expect(run.body).toEqual({ dagRunId: 'wh-1', dagName: 'hooked' });
    expect((await hook.post('/webhooks/hooked', { dagRunId: 'wh-1' })).status).toBe(409);
    expect((await hook.post('/webhooks/hooked', { payload: [1] })).status).toBe(400);
    expect((await anon.post('/webhooks/hooked', {})).status).toBe(401);
    expect((await anon.withHeaders({ authorization: 'Bearer svc_wh_wrong' }).post('/webhooks/hooked', {})).status).toBe(401);
    expect((await api.post('/dags/hooked/webhook/toggle', { enabled: false })).body.enabled).toBe(false);
    expect((await hook.post('/webhooks/hooked', {})).status).toBe(403);
    expect((await api.post('/dags/hooked/webhook/toggle', { enabled: 'no' })).status).toBe(400);
    const again = await api.post('/dags/hooked/webhook/regenerate');
    expect(again.body.token).not.toBe(token);
    await eventually(async () => (await api.get('/dag-runs/hooked/wh-1')).body?.dagRun?.status === 4 || undefined, 'webhook run');
    expect((await api.del('/dags/hooked/webhook')).status).toBe(204);
  });

  test.each([
    ['GET', '/dags/hooked/webhook'], ['DELETE', '/dags/hooked/webhook'], ['POST', '/dags/hooked/webhook/regenerate'],
    ['POST', '/dags/hooked/webhook/toggle'], ['POST', '/dags/nope/webhook'],
  ])('%s %s is a documented 404', async (method, path) => {
    const r = await api.req(method, path, method === 'POST' ? { enabled: true } : undefined);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 404, code: 'not_found' });
  });

  test('the trigger is 404 for the holder of a token whose DAG went without the API, 401 after and for anyone else', async () => {
    t.dag('gone', 'steps:\n  - command: "true"\n');
    const hook = anon.withHeaders({ authorization: `Bearer ${(await api.post('/dags/gone/webhook')).body.token}` });
    await t.server.dagStore.delete('gone'); // not through the API (which deletes the webhook with the DAG)
    expect((await hook.post('/webhooks/gone', {})).body.code).toBe('not_found');
    expect((await hook.post('/webhooks/gone', {})).body.code).toBe('unauthorized');
    expect((await hook.post('/webhooks/nope', {})).body.code).toBe('unauthorized');
  });

  test.each([['POST', '/webhooks/..%2Fx'], ['GET', '/dags/a%00/webhook'], ['POST', '/dags/..%2F..%2Fetc/webhook']])('%s %s is a documented 400', async (method, path) => {
    const r = await api.req(method, path, method === 'POST' ? {} : undefined);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: 'bad_request' });
  });

  test('every system and webhook operation answered a success, and its documented 401/403/404/409 were seen', () => {
    const area = (op: { tags: string[] }) => op.tags.includes('system') || op.tags.includes('webhooks');
    expect(c.unexercised(area)).toEqual([]);
    expect(c.unexercised((op) => op.tags.includes('webhooks'), (op) => Object.keys(op.responses).filter((s) => ['404', '409'].includes(s)))).toEqual([]);
    expect(c.unexercised((op) => op.id === 'triggerWebhook' || op.id === 'getMetrics', (op) => (op.id === 'getMetrics' ? ['401'] : ['401', '403']))).toEqual([]);
  });
});
