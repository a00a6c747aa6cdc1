/** Builtin mode: login, /auth/me, change-password, user management (SPEC 4.2). */
import { TestServer } from '../../helpers/server.js';
import { ADMIN_PASSWORD, bearer, builtinServer, expectError, login, userWithRole } from './harness.js';

let srv: TestServer;
let admin: string;

beforeAll(async () => {
  srv = await builtinServer().start();
  admin = await login(srv, 'admin', ADMIN_PASSWORD);
});
afterAll(async () => srv?.stop());

describe('POST /auth/login', () => {
  test('the initial admin logs in: a JWT and the user', async () => {
    const r = await srv.req('POST', '/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), expiresAt: expect.any(String), user: { id: expect.any(String), username: 'admin', role: 'admin' } });
  });

  test.each([
    ['a wrong password', { username: 'admin', password: 'wrong-password' }, 401, 'unauthorized'],
    ['an unknown user', { username: 'nobody', password: 'whatever-pass' }, 401, 'unauthorized'],
    ['no password', { username: 'admin' }, 400, 'bad_request'],
    ['a number as username', { username: 7, password: 'x' }, 400, 'bad_request'],
    ['an oversize password', { username: 'admin', password: 'x'.repeat(10_000) }, 400, 'bad_request'],
    ['an array body', [1], 400, 'bad_request'],
  ])('%s: %i %s', async (_w, body, status, code) => {
    expectError(await srv.req('POST', '/auth/login', body), status, code);
  });

  test('bad JSON is a 400', async () => {
    expectError(await srv.req('POST', '/auth/login', '{"username":'), 400, 'bad_request');
  });
});

describe('GET /auth/me', () => {
  test('the user of the token', async () => {
    const r = await srv.req('GET', '/auth/me', undefined, bearer(admin));
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ username: 'admin', role: 'admin', isDisabled: false });
    expect(r.body.user.passwordHash).toBeUndefined();
  });
  test.each([[{}], [bearer('nonsense')], [{ authorization: 'Token abc' }]])('401 without a valid credential %#', async (h) => {
    const r = await srv.req('GET', '/auth/me', undefined, h);
    expectError(r, 401, 'unauthorized');
    expect(r.headers.get('www-authenticate')).toContain('Bearer');
  });
});

describe('users', () => {
  test('create, list, change role, reset password, disable, enable, delete', async () => {
    const created = await srv.req('POST', '/users', { username: 'carol', password: 'carol-pass-1', role: 'viewer' }, bearer(admin));
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ id: expect.any(String), username: 'carol', role: 'viewer', isDisabled: false });
    const id = created.body.user.id as string;
    const listed = await srv.req('GET', '/users', undefined, bearer(admin));
    expect(listed.body.users.map((u: { username: string }) => u.username)).toEqual(expect.arrayContaining(['admin', 'carol']));

    const role = await srv.req('PUT', `/users/${id}`, { role: 'operator' }, bearer(admin));
    expect([role.status, role.body.user.role]).toEqual([200, 'operator']);
    const carol = await login(srv, 'carol', 'carol-pass-1');
    expect((await srv.req('GET', '/auth/me', undefined, bearer(carol))).body.user.role).toBe('operator');

    const reset = await srv.req('PUT', `/users/${id}/password`, { newPassword: 'carol-pass-2' }, bearer(admin));
    expect(reset.status).toBe(200);
    expectError(await srv.req('GET', '/auth/me', undefined, bearer(carol)), 401, 'unauthorized'); // revoked by the reset
    const carol2 = await login(srv, 'carol', 'carol-pass-2');

    expect((await srv.req('PATCH', `/users/${id}`, { isDisabled: true }, bearer(admin))).body.user.isDisabled).toBe(true);
    expectError(await srv.req('GET', '/auth/me', undefined, bearer(carol2)), 401, 'unauthorized');
    expectError(await srv.req('POST', '/auth/login', { username: 'carol', password: 'carol-pass-2' }), 401, 'unauthorized');
    expect((await srv.req('PATCH', `/users/${id}`, { isDisabled: false }, bearer(admin))).body.user.isDisabled).toBe(false);
    expect((await srv.req('GET', '/auth/me', undefined, bearer(carol2))).status).toBe(200);

    expect((await srv.req('DELETE', `/users/${id}`, undefined, bearer(admin))).status).toBe(204);
    expectError(await srv.req('GET', '/auth/me', undefined, bearer(carol2)), 401, 'unauthorized');
    expectError(await srv.req('DELETE', `/users/${id}`, undefined, bearer(admin)), 404, 'not_found');
  });

  test.each([
    ['POST', '/users', { username: 'dave', password: 'short', role: 'viewer' }, 400, 'bad_request'],
    ['POST', '/users', { username: 'dave', password: 'long-enough', role: 'root' }, 400, 'bad_request'],
    ['POST', '/users', { username: '../etc', password: 'long-enough', role: 'viewer' }, 400, 'bad_request'],
    ['POST', '/users', { username: 'x'.repeat(65), password: 'long-enough', role: 'viewer' }, 400, 'bad_request'],
    ['POST', '/users', { username: 'dave', role: 'viewer' }, 400, 'bad_request'],
    ['POST', '/users', { username: 'dave', password: 'y'.repeat(300), role: 'viewer' }, 400, 'bad_request'],
    ['POST', '/users', { username: 'ADMIN', password: 'long-enough', role: 'viewer' }, 409, 'already_exists'],
    ['POST', '/users', 'not json', 400, 'bad_request'],
    ['PUT', '/users/no-such-user', { role: 'viewer' }, 404, 'not_found'],
    ['PUT', '/users/..%2Fetc', { role: 'viewer' }, 400, 'bad_request'],
    ['PUT', '/users/no-such-user/password', { newPassword: 'long-enough' }, 404, 'not_found'],
    ['PUT', '/users/no-such-user/password', { newPassword: 'short' }, 400, 'bad_request'],
    ['PATCH', '/users/no-such-user', { isDisabled: 'yes' }, 400, 'bad_request'],
    ['PATCH', '/users/no-such-user', { isDisabled: true }, 404, 'not_found'],
    ['DELETE', '/users/%00', undefined, 400, 'bad_request'],
  ])('%s %s %j: %i %s', async (method, path, body, status, code) => {
    expectError(await srv.req(method, path, body, bearer(admin)), status, code);
  });

  test('the last enabled admin cannot be demoted, disabled or deleted; nobody disables or deletes themselves', async () => {
    const me = (await srv.req('GET', '/auth/me', undefined, bearer(admin))).body.user.id as string;
    expectError(await srv.req('PUT', `/users/${me}`, { role: 'viewer' }, bearer(admin)), 400, 'bad_request');
    expectError(await srv.req('PATCH', `/users/${me}`, { isDisabled: true }, bearer(admin)), 400, 'bad_request');
    expectError(await srv.req('DELETE', `/users/${me}`, undefined, bearer(admin)), 400, 'bad_request');
    const other = await userWithRole(srv, admin, 'admin2', 'admin');
    // With a second admin, the first may be demoted (by the other) and promoted back.
    expect((await srv.req('PUT', `/users/${me}`, { role: 'manager' }, bearer(other.token))).body.user.role).toBe('manager');
    expectError(await srv.req('GET', '/users', undefined, bearer(admin)), 403, 'forbidden'); // the role applies at once
    expect((await srv.req('PUT', `/users/${me}`, { role: 'admin' }, bearer(other.token))).body.user.role).toBe('admin');
    expect((await srv.req('DELETE', `/users/${other.id}`, undefined, bearer(admin))).status).toBe(204);
  });
});

describe('POST /auth/change-password', () => {
  test('needs the current password; old tokens stop working; a new token comes back', async () => {
    const u = await userWithRole(srv, admin, 'erin', 'viewer', 'erin-pass-1');
    expectError(await srv.req('POST', '/auth/change-password', { currentPassword: 'wrong-pass', newPassword: 'erin-pass-2' }, bearer(u.token)), 401, 'unauthorized');
    expectError(await srv.req('POST', '/auth/change-password', { currentPassword: 'erin-pass-1', newPassword: 'short' }, bearer(u.token)), 400, 'bad_request');
    expectError(await srv.req('POST', '/auth/change-password', { currentPassword: 'erin-pass-1' }, bearer(u.token)), 400, 'bad_request');
    const ok = await srv.req('POST', '/auth/change-password', { currentPassword: 'erin-pass-1', newPassword: 'erin-pass-2' }, bearer(u.token));
    expect(ok.status).toBe(200);
    expect(ok.body.token).toEqual(expect.any(String));
    expectError(await srv.req('GET', '/auth/me', undefined, bearer(u.token)), 401, 'unauthorized');
    expect((await srv.req('GET', '/auth/me', undefined, bearer(ok.body.token))).status).toBe(200);
    await login(srv, 'erin', 'erin-pass-2');
  });

  test('401 without credentials', async () => {
    expectError(await srv.req('POST', '/auth/change-password', { currentPassword: 'a', newPassword: 'b' }), 401, 'unauthorized');
  });
});
