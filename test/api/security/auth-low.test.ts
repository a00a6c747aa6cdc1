/**
 * What outlived the grant it came from, on the real server in builtin mode: an API key whose creator was
 * disabled, deleted or demoted; a webhook token whose DAG was deleted or renamed, when a new DAG takes the
 * name; an OIDC login whose provider never said the e-mail is verified, under a domain rule; a web
 * terminal whose admin was demoted.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { eventually, type TestServer } from '../../helpers/server.js';
import { ADMIN_PASSWORD, apiKeyWithRole, bearer, builtinServer, login, userWithRole } from '../auth/harness.js';
import { browse, CLIENT_ID, CLIENT_SECRET, freePort, TestProvider } from '../auth/oidc-op.js';

const srv = builtinServer({ SVC_TERMINAL_ENABLED: 'true' });
let admin: string;
const as = (token: string) => ({
  get: (path: string) => srv.req('GET', path, undefined, bearer(token)),
  post: (path: string, body: unknown = {}) => srv.req('POST', path, body, bearer(token)),
});

beforeAll(async () => {
  await srv.start();
  admin = await login(srv, 'admin', ADMIN_PASSWORD);
});
afterAll(() => srv.stop());

describe('an API key acts for its creator', () => {
  test('its creator disabled: 401; enabled again: it works again', async () => {
    const ann = await userWithRole(srv, admin, 'ann', 'admin');
    const key = await apiKeyWithRole(srv, ann.token, 'ann-key', 'viewer');
    expect((await as(key.key).get('/dags')).status).toBe(200);
    expect((await srv.req('PATCH', `/users/${ann.id}`, { isDisabled: true }, bearer(admin))).status).toBe(200);
    const r = await as(key.key).get('/dags');
    expect([r.status, r.body.code]).toEqual([401, 'unauthorized']);
    expect(r.body.message).toMatch(/disabled/);
    expect((await srv.req('PATCH', `/users/${ann.id}`, { isDisabled: false }, bearer(admin))).status).toBe(200);
    expect((await as(key.key).get('/dags')).status).toBe(200);
  });

  test('its creator deleted: 401, also for a key made with that key', async () => {
    const bob = await userWithRole(srv, admin, 'bob', 'admin');
    const key = await apiKeyWithRole(srv, bob.token, 'bob-key', 'admin');
    const child = await apiKeyWithRole(srv, key.key, 'bob-child', 'viewer');
    expect((await as(child.key).get('/dags')).status).toBe(200);
    expect((await srv.req('DELETE', `/users/${bob.id}`, undefined, bearer(admin))).status).toBe(204);
    for (const k of [key.key, child.key]) expect((await as(k).get('/dags')).status).toBe(401);
  });

  test('its creator demoted: the key grants no more than the creator\'s role now', async () => {
    const cid = await userWithRole(srv, admin, 'cid', 'admin');
    const key = await apiKeyWithRole(srv, cid.token, 'cid-key', 'admin');
    expect((await as(key.key).get('/users')).status).toBe(200);
    expect((await srv.req('PUT', `/users/${cid.id}`, { role: 'viewer' }, bearer(admin))).status).toBe(200);
    expect((await as(key.key).get('/users')).status).toBe(403);
    expect((await as(key.key).get('/dags')).status).toBe(200);
  });
});

describe('a webhook belongs to its DAG, not to the name', () => {
  const DAG = 'steps:\n  - name: s\n    command: echo hook\n';
  const trigger = (name: string, token: string) => srv.req('POST', `/webhooks/${name}`, {}, bearer(token));
  const runsOf = async (name: string) => (await as(admin).get(`/dag-runs?name=${name}`)).body.dagRuns.length as number;

  test('the DAG deleted and a new one of that name created: the old token triggers nothing', async () => {
    expect((await as(admin).post('/dags', { name: 'hooked', spec: DAG })).status).toBe(201);
    const token = (await as(admin).post('/dags/hooked/webhook')).body.token as string;
    expect((await trigger('hooked', token)).status).toBe(200);
    expect((await srv.req('DELETE', '/dags/hooked', undefined, bearer(admin))).status).toBe(204);
    expect((await as(admin).post('/dags', { name: 'hooked', spec: DAG })).status).toBe(201);
    const r = await trigger('hooked', token);
    expect([401, 404]).toContain(r.status);
    expect((await as(admin).get('/dags/hooked/webhook')).status).toBe(404);
    expect(await runsOf('hooked')).toBe(1);
  });

  test('the DAG renamed and a new one taking the old name: the old token triggers neither', async () => {
    expect((await as(admin).post('/dags', { name: 'moving', spec: DAG })).status).toBe(201);
    const token = (await as(admin).post('/dags/moving/webhook')).body.token as string;
    expect((await as(admin).post('/dags/moving/rename', { newFileName: 'moved' })).status).toBe(200);
    expect((await as(admin).post('/dags', { name: 'moving', spec: DAG })).status).toBe(201);
    expect([401, 404]).toContain((await trigger('moving', token)).status);
    expect([401, 404]).toContain((await trigger('moved', token)).status);
    expect(await runsOf('moving')).toBe(0);
  });
});

describe('OIDC: an e-mail the provider does not call verified passes no rule', () => {
  const op = new TestProvider();
  let base = '';
  let oidc: TestServer;
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await op.start([`${base}/oidc-callback`]);
    Object.assign(op.accounts, { silent: { email: 'silent@example.com', groups: [] }, checked: { email: 'checked@example.com', email_verified: true } });
    oidc = builtinServer({ SVC_PORT: String(port) });
    const cfg = join(oidc.dir, 'config.yaml');
    writeFileSync(cfg, 'auth:\n  oidc:\n    allowedDomains: [example.com]\n');
    Object.assign(oidc.env, {
      SVC_CONFIG: cfg, SVC_AUTH_OIDC_CLIENT_ID: CLIENT_ID, SVC_AUTH_OIDC_CLIENT_SECRET: CLIENT_SECRET, SVC_AUTH_OIDC_CLIENT_URL: base, SVC_AUTH_OIDC_ISSUER: op.issuer,
    });
    await oidc.start();
  });
  afterAll(async () => {
    await oidc?.stop();
    await op.stop();
  });
  const outcome = async (account: string) => {
    op.next = account;
    return Object.fromEntries(new URLSearchParams(new URL(await browse(`${base}/api/v2/auth/oidc/login`, `${base}/login`)).hash.slice(1)));
  };

  test('no email_verified claim: refused under allowedDomains; a verified one passes', async () => {
    const silent = await outcome('silent');
    expect(silent).toEqual({ error: 'access_denied', error_description: expect.stringMatching(/not allowed/) });
    expect((await outcome('checked')).token).toEqual(expect.any(String));
  });
});

describe('a web terminal is its admin\'s', () => {
  test('the admin demoted: the session ends, and the shell with it', async () => {
    const dee = await userWithRole(srv, admin, 'dee', 'admin');
    const ticket = (await as(dee.token).post('/terminal/tickets')).body.ticket as string;
    const ws = new WebSocket(`${srv.url.replace(/^http/, 'ws')}/api/v2/terminal/session?ticket=${encodeURIComponent(ticket)}`, { origin: srv.url });
    const controls: Array<Record<string, unknown>> = [];
    let out = '';
    ws.on('message', (d, bin) => (bin ? (out += String(d)) : controls.push(JSON.parse(String(d)) as Record<string, unknown>)));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
    ws.send(Buffer.from('echo "pid=$$"\n'));
    await eventually(async () => /pid=\d+/.test(out), 'the shell to answer', 10_000);
    expect((await srv.req('PUT', `/users/${dee.id}`, { role: 'viewer' }, bearer(admin))).status).toBe(200);
    expect(await closed).toBe(1008);
    expect(controls).toContainEqual({ type: 'error', code: 'forbidden', message: expect.stringContaining('no admin') });
    const pid = Number(/pid=(\d+)/.exec(out)?.[1]);
    await eventually(async () => { try { process.kill(pid, 0); return false; } catch { return true; } }, 'the shell to be gone', 10_000);
  }, 30_000);
});
