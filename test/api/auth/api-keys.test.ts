/** API keys (SPEC 4.6): shown once, only a hash stored, own role, lastUsedAt, limits and errors. */
import type { TestServer } from '../../helpers/server.js';
import { ADMIN_PASSWORD, bearer, builtinServer, expectError, login } from './harness.js';

let srv: TestServer;
let admin: string;

beforeAll(async () => {
  srv = await builtinServer().start();
  admin = await login(srv, 'admin', ADMIN_PASSWORD);
});
afterAll(async () => srv?.stop());

const as = (method: string, path: string, body?: unknown) => srv.req(method, path, body, bearer(admin));

test('create: 201 with the full key once; the record has a keyPrefix and no secret', async () => {
  const r = await as('POST', '/api-keys', { name: 'ci', description: 'for CI', role: 'operator' });
  expect(r.status).toBe(201);
  expect(r.body.key).toMatch(/^svc_[\w-]{40}$/);
  expect(r.body.apiKey).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'ci', description: 'for CI', role: 'operator', keyPrefix: r.body.key.slice(0, 12),
    createdAt: expect.any(String), updatedAt: expect.any(String), createdBy: expect.any(String),
  });
  const got = await as('GET', `/api-keys/${r.body.apiKey.id}`);
  expect(got.body).toEqual({ apiKey: r.body.apiKey });
  expect(got.text).not.toContain(r.body.key);
  expect((await as('GET', '/api-keys')).body.apiKeys).toEqual(expect.arrayContaining([r.body.apiKey]));
  const stored = await srv.storedRecords('api-keys');
  expect(stored).not.toContain(r.body.key);
  expect(stored).toContain(r.body.apiKey.keyPrefix);
});

test('the key authenticates with its own role, and lastUsedAt appears after the first use', async () => {
  const { body } = await as('POST', '/api-keys', { name: 'reader', role: 'viewer' });
  expect(body.apiKey.lastUsedAt).toBeUndefined();
  const me = await srv.req('GET', '/auth/me', undefined, bearer(body.key));
  expect(me.body).toEqual({ user: { id: body.apiKey.id, username: 'reader', role: 'viewer' }, authType: 'apiKey' });
  expect((await srv.req('GET', '/dags', undefined, bearer(body.key))).status).toBe(200);
  expectError(await srv.req('POST', '/dags', { name: 'x' }, bearer(body.key)), 403, 'forbidden');
  expect((await as('GET', `/api-keys/${body.apiKey.id}`)).body.apiKey.lastUsedAt).toEqual(expect.any(String));
});

test('PATCH changes only the given fields; the role applies at once; DELETE revokes the key', async () => {
  const { body } = await as('POST', '/api-keys', { name: 'changing', description: 'd', role: 'viewer' });
  const p = await as('PATCH', `/api-keys/${body.apiKey.id}`, { role: 'manager' });
  expect(p.status).toBe(200);
  expect(p.body.apiKey).toMatchObject({ name: 'changing', description: 'd', role: 'manager' });
  expect((await srv.req('GET', '/auth/me', undefined, bearer(body.key))).body.user.role).toBe('manager');
  expect((await as('PATCH', `/api-keys/${body.apiKey.id}`, { name: 'renamed', description: '' })).body.apiKey).toMatchObject({ name: 'renamed', description: '', role: 'manager' });
  expect((await as('DELETE', `/api-keys/${body.apiKey.id}`)).status).toBe(204);
  expectError(await srv.req('GET', '/auth/me', undefined, bearer(body.key)), 401, 'unauthorized');
  expectError(await as('GET', `/api-keys/${body.apiKey.id}`), 404, 'not_found');
});

test.each([
  ['POST', '/api-keys', { name: '', role: 'viewer' }, 400, 'bad_request'],
  ['POST', '/api-keys', { name: 'n'.repeat(101), role: 'viewer' }, 400, 'bad_request'],
  ['POST', '/api-keys', { name: 'ok-name', description: 'd'.repeat(501), role: 'viewer' }, 400, 'bad_request'],
  ['POST', '/api-keys', { name: 'ok-name' }, 400, 'bad_request'],
  ['POST', '/api-keys', { name: 'ok-name', role: 'superuser' }, 400, 'bad_request'],
  ['POST', '/api-keys', { name: 42, role: 'viewer' }, 400, 'bad_request'],
  ['POST', '/api-keys', '{"name": ', 400, 'bad_request'],
  ['POST', '/api-keys', { name: 'ci', role: 'viewer' }, 409, 'already_exists'],
  ['GET', '/api-keys/00000000-0000-0000-0000-000000000000', undefined, 404, 'not_found'],
  ['GET', '/api-keys/..%2F..%2Fusers', undefined, 400, 'bad_request'],
  ['PATCH', '/api-keys/00000000-0000-0000-0000-000000000000', { role: 'viewer' }, 404, 'not_found'],
  ['PATCH', '/api-keys/00000000-0000-0000-0000-000000000000', { role: 7 }, 400, 'bad_request'],
  ['DELETE', '/api-keys/00000000-0000-0000-0000-000000000000', undefined, 404, 'not_found'],
])('%s %s %j: %i %s', async (method, path, body, status, code) => {
  expectError(await as(method, path, body), status, code);
});

test('PATCH to a name another key has: 409', async () => {
  const { body } = await as('POST', '/api-keys', { name: 'second', role: 'viewer' });
  expectError(await as('PATCH', `/api-keys/${body.apiKey.id}`, { name: 'ci' }), 409, 'already_exists');
});

test('description of exactly 500 and a name of exactly 100 characters are fine', async () => {
  expect((await as('POST', '/api-keys', { name: 'n'.repeat(100), description: 'd'.repeat(500), role: 'viewer' })).status).toBe(201);
});
