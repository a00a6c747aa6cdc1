/**
 * Contract of the authentication operations (SPEC 4.2, 4.6) in builtin mode, and of the 401/403 answers:
 * every operation that is not public answers a documented 401 without credentials, and the admin-only ones
 * a documented 403 to a viewer.
 */
import { TestServer } from '../../helpers/server.js';
import { CheckedClient, Contract, type Operation } from './contract.js';

const ADMIN_PASSWORD = 'contract-admin-pass-1';
const t = new TestServer({ SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: 'contract-secret-0123456789-abcdefghijkl', SVC_AUTH_ADMIN_PASSWORD: ADMIN_PASSWORD });
let c: Contract;
let anon: CheckedClient;
let admin: CheckedClient;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sample = (template: string) => template.replace(/\{[^}]+\}/g, 'sample-1');
const isPublic = (op: Operation) => {
  const security = c.doc.paths[op.template][op.method.toLowerCase()].security as unknown[] | undefined;
  return security?.length === 1 && Object.keys(security[0] as object).length === 0;
};

beforeAll(async () => {
  t.dag('guarded', 'steps:\n  - name: s\n    command: "true"\n');
  await t.start();
  c = await Contract.load(t);
  anon = new CheckedClient(t, c);
  const login = await anon.post('/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
  admin = anon.withHeaders(bearer(login.body.token));
});
afterAll(() => t.stop());

describe('authentication operations conform to the document', () => {
  test('login, me, OIDC info, change password', async () => {
    expect((await anon.post('/auth/login', { username: 'admin', password: 'wrong-password' })).status).toBe(401);
    expect((await anon.post('/auth/login', { username: 'admin' })).status).toBe(400);
    expect((await admin.get('/auth/me')).body).toMatchObject({ user: { username: 'admin', role: 'admin' }, authType: 'jwt' });
    expect((await anon.get('/auth/oidc')).body.enabled).toBe(false);
    expect((await anon.get('/auth/oidc/login')).status).toBe(404);
    await admin.post('/users', { username: 'changer', password: 'changer-pass-1', role: 'viewer' });
    const token = (await anon.post('/auth/login', { username: 'changer', password: 'changer-pass-1' })).body.token;
    const changer = anon.withHeaders(bearer(token));
    expect((await changer.post('/auth/change-password', { currentPassword: 'changer-pass-1', newPassword: 'short' })).status).toBe(400);
    expect((await changer.post('/auth/change-password', { currentPassword: 'changer-pass-1', newPassword: 'changer-pass-2' })).body.token).toEqual(expect.any(String));
  });

  test('users: create, list, role, password, disable, delete', async () => {
    const u = await admin.post('/users', { username: 'alice', password: 'alice-pass-1', role: 'viewer' });
    expect(u.status).toBe(201);
    const id = u.body.user.id as string;
    expect((await admin.post('/users', { username: 'alice', password: 'alice-pass-1', role: 'viewer' })).status).toBe(409);
    expect((await admin.post('/users', { username: 'bob', password: 'bob-pass-1', role: 'emperor' })).status).toBe(400);
    expect((await admin.get('/users')).body.users.length).toBeGreaterThan(1);
    expect((await admin.put(`/users/${id}`, { role: 'operator' })).body.user.role).toBe('operator');
    expect((await admin.put(`/users/${id}/password`, { newPassword: 'alice-pass-2' })).status).toBe(200);
    expect((await admin.patch(`/users/${id}`, { isDisabled: true })).body.user.isDisabled).toBe(true);
    expect((await admin.del(`/users/${id}`)).status).toBe(204);
    for (const [m, p] of [['PUT', `/users/${id}`], ['PUT', `/users/${id}/password`], ['PATCH', `/users/${id}`], ['DELETE', `/users/${id}`]] as const) {
      const r = await admin.req(m, p, m === 'DELETE' ? undefined : { role: 'viewer', newPassword: 'whatever-1', isDisabled: false });
      expect({ p, status: r.status }).toEqual({ p, status: 404 });
    }
    expect((await admin.put('/users/..%2Fx', { role: 'viewer' })).status).toBe(400);
  });

  test('API keys: create, list, get, update, delete', async () => {
    const k = await admin.post('/api-keys', { name: 'ci', description: 'for CI', role: 'operator' });
    expect(k.status).toBe(201);
    const id = k.body.apiKey.id as string;
    expect((await admin.post('/api-keys', { name: 'ci', role: 'operator' })).status).toBe(409);
    expect((await admin.post('/api-keys', { name: 'x'.repeat(101), role: 'operator' })).status).toBe(400);
    expect((await admin.get('/api-keys')).body.apiKeys).toHaveLength(1);
    expect((await admin.get(`/api-keys/${id}`)).body.apiKey.name).toBe('ci');
    await admin.post('/api-keys', { name: 'other', role: 'viewer' });
    expect((await admin.patch(`/api-keys/${id}`, { name: 'other' })).status).toBe(409);
    expect((await admin.patch(`/api-keys/${id}`, { description: 'changed' })).body.apiKey.description).toBe('changed');
    expect((await anon.withHeaders(bearer(k.body.key)).get('/dags')).status).toBe(200);
    expect((await admin.del(`/api-keys/${id}`)).status).toBe(204);
    for (const m of ['GET', 'PATCH', 'DELETE']) expect((await admin.req(m, `/api-keys/${id}`, m === 'PATCH' ? { name: 'y' } : undefined)).status).toBe(404);
  });

  test('every operation that is not public answers a documented 401 without credentials', async () => {
    const guarded = [...c.operations.values()].filter((op) => !isPublic(op) && op.id !== 'triggerWebhook');
    expect(guarded.length).toBeGreaterThan(40);
    for (const op of guarded) {
      const r = await anon.req(op.method, sample(op.template), op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
      expect({ op: op.id, status: r.status, code: r.body?.code }).toEqual({ op: op.id, status: 401, code: 'unauthorized' });
    }
  });

  test('admin-only operations answer a viewer with a documented 403', async () => {
    const key = (await admin.post('/api-keys', { name: 'viewer-key', role: 'viewer' })).body.key as string;
    const viewer = anon.withHeaders(bearer(key));
    const adminOnly = [...c.operations.values()].filter((op) => ['/users', '/api-keys', '/webhooks'].some((p) => op.template.startsWith(p)) || op.template.endsWith('/webhook')
      || op.template.includes('/webhook/'));
    for (const op of adminOnly.filter((o) => o.id !== 'triggerWebhook')) {
      const r = await viewer.req(op.method, sample(op.template), op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
      expect({ op: op.id, status: r.status, code: r.body?.code }).toEqual({ op: op.id, status: 403, code: 'forbidden' });
    }
    expect((await viewer.post('/dags/guarded/start')).status).toBe(403);
  });

  test('every authentication operation answered a success (but the OIDC redirect, which needs a provider) and its documented 404/409', () => {
    const auth = (op: Operation) => op.tags.includes('auth') && op.id !== 'beginOidcLogin';
    expect(c.unexercised(auth)).toEqual([]);
    // 404 of an unknown id, 409 of a taken name (404 is also 'builtin authentication off', see docs/api.md).
    const specific = (op: Operation) => [...(op.template.includes('{') ? ['404'] : []), ...(['createUser', 'createApiKey', 'updateApiKey'].includes(op.id) ? ['409'] : [])];
    expect(c.unexercised((op) => op.tags.includes('auth'), specific)).toEqual([]);
  });
});
