/** remoteNode (SPEC 2.1): two real servers on loopback, the second one the remote of the first. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer } from '../../helpers/server.js';

let local: TestServer;
let remote: TestServer;

beforeAll(async () => {
  remote = await new TestServer({ SVC_AUTH_TOKEN: 'remote-secret' }).start();
  remote.dag('only-remote', 'steps:\n  - command: "true"\n');
  const cfg = join(remote.dir, 'local-config.yaml');
  writeFileSync(cfg, [
    'remoteNodes:',
    `  - {name: b, apiBaseURL: "${remote.url}/api/v2/"}`,
    `  - {name: b-auth, apiBaseURL: "${remote.url}/api/v2", authToken: remote-secret}`,
    '  - {name: down, apiBaseURL: "http://127.0.0.1:1/api/v2"}',
  ].join('\n'));
  local = await new TestServer({ SVC_CONFIG: cfg }).start();
});
afterAll(async () => {
  await local?.stop();
  await remote?.stop();
});

test('a request naming a node is answered by that node (status, body, content type)', async () => {
  const created = await local.post('/dags/only-remote/webhook?remoteNode=b-auth');
  expect(created.status).toBe(201);
  expect(created.headers.get('content-type')).toMatch(/application\/json/);
  expect(created.headers.get('x-svc-remote-node')).toBe('b-auth');
  expect(created.body.webhook.dagName).toBe('only-remote');
  expect((await local.get('/dags/only-remote/webhook')).status).toBe(404);
  expect((await remote.req('GET', '/dags/only-remote/webhook', undefined, { authorization: 'Bearer remote-secret' })).status).toBe(200);
  expect((await local.get('/dags/only-remote/webhook?remoteNode=b-auth')).body).toEqual(created.body.webhook);
});

test('the JSON body and the other query parameters travel; remoteNode does not', async () => {
  const off = await local.req('POST', '/dags/only-remote/webhook/toggle?remoteNode=b-auth', { enabled: false });
  expect(off.status).toBe(200);
  expect(off.body.enabled).toBe(false);
  const bad = await local.get('/services/resources/history?remoteNode=b-auth&duration=nonsense');
  expect(bad.status).toBe(400);
  expect(bad.body.message).toContain('"nonsense"');
  expect((await local.get('/services/resources/history?duration=30m&remoteNode=b-auth')).status).toBe(200);
  const del = await local.req('DELETE', '/dags/only-remote/webhook?remoteNode=b-auth');
  expect(del.status).toBe(204);
  expect((await remote.req('GET', '/dags/only-remote/webhook', undefined, { authorization: 'Bearer remote-secret' })).status).toBe(404);
});

test('the caller\'s Authorization is passed on; a node\'s authToken replaces it', async () => {
  expect((await local.get('/metrics?remoteNode=b')).status).toBe(401);
  const withHeader = await local.req('GET', '/metrics?remoteNode=b', undefined, { authorization: 'Bearer remote-secret' });
  expect(withHeader.status).toBe(200);
  expect(withHeader.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(withHeader.text).toContain('svc_info');
  expect((await local.get('/metrics?remoteNode=b-auth')).status).toBe(200);
});

test('runs are started and read on the remote node', async () => {
  const started = await local.post('/dags/only-remote/start?remoteNode=b-auth', { dagRunId: 'remote-run' });
  expect(started.status).toBe(200);
  expect(started.body.dagRunId).toBe('remote-run');
  expect((await local.get('/dag-runs/only-remote/remote-run')).status).toBe(404);
  const detail = await local.get('/dag-runs/only-remote/remote-run?remoteNode=b-auth');
  expect(detail.status).toBe(200);
  expect(detail.body.dagRun.dagRunId).toBe('remote-run');
  expect((await local.get('/dags/only-remote?remoteNode=b-auth')).status).toBe(200);
});

test('remoteNode=local (and empty) is this instance', async () => {
  for (const q of ['local', '']) {
    const r = await local.get(`/dags/only-remote/webhook?remoteNode=${q}`);
    expect(r.status).toBe(404);
    expect(r.headers.get('x-svc-remote-node')).toBeNull();
  }
});

test.each([
  ['an unknown node', '/health?remoteNode=nowhere', 400, 'bad_request', 'nowhere'],
  ['remoteNode given twice', '/health?remoteNode=b&remoteNode=b-auth', 400, 'bad_request', 'remoteNode'],
  ['an unreachable node', '/health?remoteNode=down', 503, 'service_unavailable', 'unreachable'],
])('%s', async (_what, path, status, code, text) => {
  const r = await local.get(path);
  expect(r.status).toBe(status);
  expect(r.body).toMatchObject({ code, message: expect.stringContaining(text) });
});

test('the unknown-node error lists the configured nodes', async () => {
  expect((await local.get('/workers?remoteNode=x')).body.message).toContain('local, b, b-auth, down');
});
