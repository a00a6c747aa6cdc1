/**
 * Modes (SPEC 5.2): none stays open; static token and basic credentials in mode none; basic ignored under
 * builtin; the generated admin password; metrics privacy; no v1 API; the token TTL.
 */
import { jest } from '@jest/globals';
import { decodeJwt } from 'jose';
import { TestServer } from '../../helpers/server.js';
import { ADMIN_PASSWORD, apiKeyWithRole, basic, bearer, builtinServer, CapturingServer, expectError, login, SECRET, userWithRole } from './harness.js';

async function withServer(srv: TestServer, fn: (s: TestServer) => Promise<void>): Promise<void> {
  await srv.start();
  try { await fn(srv); } finally { await srv.stop(); }
}

test('mode none (the default): the API is open; the auth routes say builtin authentication is off', () => withServer(new TestServer(), async (s) => {
  s.dag('open', 'steps:\n  - command: "true"\n');
  expect((await s.get('/dags')).status).toBe(200);
  expect((await s.post('/dags', { name: 'made-without-auth' })).status).toBe(201);
  expect((await s.req('GET', '/dags', undefined, bearer('whatever'))).status).toBe(200);
  for (const [m, p] of [['POST', '/auth/login'], ['GET', '/auth/me'], ['GET', '/users'], ['GET', '/api-keys']]) {
    const r = await s.req(m as string, p as string, m === 'POST' ? { username: 'a', password: 'b' } : undefined);
    expectError(r, 404, 'not_found');
    expect(r.body.message).toContain('SVC_AUTH_MODE=builtin');
  }
  expect((await s.get('/auth/oidc')).body).toEqual({ enabled: false });
}));

test.each([
  ['mode none', () => new TestServer()],
  ['builtin mode', () => builtinServer()],
])('%s: /api/v1/* is a JSON 404 not_found', async (_m, make) => withServer(make(), async (s) => {
  for (const [m, p] of [['GET', '/api/v1/dags'], ['POST', '/api/v1/dags/x/start'], ['GET', '/api/v1']]) {
    const r = await fetch(`${s.url}${p}`, { method: m });
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ code: 'not_found', message: expect.stringContaining('/api/v2') });
  }
}));

test('mode none with a static token: every non-public route needs it; health and the webhook trigger do not', () => withServer(new TestServer({ SVC_AUTH_TOKEN: 'static-secret-value' }), async (s) => {
  s.dag('hooked', 'steps:\n  - command: "true"\n');
  const r = await s.get('/dags');
  expectError(r, 401, 'unauthorized');
  expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
  expectError(await s.req('GET', '/dags', undefined, bearer('static-secret-valuE')), 401, 'unauthorized');
  expect((await s.req('GET', '/dags', undefined, bearer('static-secret-value'))).status).toBe(200);
  expect((await s.get('/health')).status).toBe(200);
  const hook = await s.req('POST', '/dags/hooked/webhook', {}, bearer('static-secret-value'));
  expect(hook.status).toBe(201);
  expect((await s.req('POST', '/webhooks/hooked', {}, bearer(hook.body.token))).status).toBe(200);
  const misuse = await s.req('GET', '/dags', undefined, bearer(hook.body.token));
  expectError(misuse, 401, 'unauthorized');
  expect(misuse.body.message).toContain('webhook');
  expect((await s.req('GET', '/metrics', undefined, bearer('static-secret-value'))).status).toBe(200);
  expectError(await s.get('/metrics'), 401, 'unauthorized');
}));

test('mode none with basic credentials: they open the API; a wrong pair does not', () => withServer(new TestServer({ SVC_AUTH_BASIC_USERNAME: 'ops', SVC_AUTH_BASIC_PASSWORD: 'ops-pass:1' }), async (s) => {
  const r = await s.get('/dags');
  expectError(r, 401, 'unauthorized');
  expect(r.headers.get('www-authenticate')).toContain('Basic');
  expect((await s.req('GET', '/dags', undefined, basic('ops', 'ops-pass:1'))).status).toBe(200);
  expectError(await s.req('GET', '/dags', undefined, basic('ops', 'ops-pass')), 401, 'unauthorized');
  expectError(await s.req('GET', '/dags', undefined, basic('Ops', 'ops-pass:1')), 401, 'unauthorized');
}));

test('builtin mode: basic credentials are ignored with a logged warning', async () => {
  const s = new CapturingServer({ SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: SECRET, SVC_AUTH_ADMIN_PASSWORD: ADMIN_PASSWORD, SVC_AUTH_BASIC_USERNAME: 'admin', SVC_AUTH_BASIC_PASSWORD: ADMIN_PASSWORD });
  await withServer(s, async () => {
    expect(s.logs.some((l) => l.includes('WARN') && l.includes('basic'))).toBe(true);
    const r = await s.req('GET', '/dags', undefined, basic('admin', ADMIN_PASSWORD));
    expectError(r, 401, 'unauthorized');
    expect(r.body.message).toContain('basic authentication is disabled in builtin mode');
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(s.logs.filter((l) => l.includes('Ignored basic authentication:')).length).toBe(1);
  });
});

test('builtin mode without a configured password: a generated one is printed once to stdout and works', async () => {
  const printed: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array) => { printed.push(String(chunk)); return true; }) as never);
  const s = new CapturingServer({ SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: SECRET, SVC_AUTH_ADMIN_USERNAME: 'root-user' });
  let password = '';
  try {
    await s.start();
    const line = printed.join('').split('\n').find((l) => l.includes('generated password'))!;
    password = /generated password: (\S+)/.exec(line)![1]!;
    expect(password.length).toBeGreaterThanOrEqual(20);
    await s.stop();
    printed.length = 0;
    await s.start(); // users exist now: nothing is generated or printed
    expect(printed.join('')).not.toContain('generated password');
  } finally {
    spy.mockRestore();
  }
  try {
    expect(s.logs.join('')).not.toContain(password);
    const token = await login(s, 'root-user', password);
    expect((await s.req('GET', '/auth/me', undefined, bearer(token))).body.user.role).toBe('admin');
  } finally {
    await s.stop();
  }
});

test('builtin mode: private metrics open to any role through a JWT, an API key or the static token, never without', () => withServer(builtinServer({ SVC_AUTH_TOKEN: 'static-secret-value' }), async (s) => {
  const admin = await login(s, 'admin', ADMIN_PASSWORD);
  const viewer = await userWithRole(s, admin, 'metrics-viewer', 'viewer');
  const key = await apiKeyWithRole(s, admin, 'prometheus', 'viewer');
  for (const h of [bearer(viewer.token), bearer(key.key), bearer('static-secret-value')]) {
    const r = await s.req('GET', '/metrics', undefined, h);
    expect(r.status).toBe(200);
    expect(r.text).toContain('svc_info');
  }
  expectError(await s.get('/metrics'), 401, 'unauthorized');
  expect((await s.get('/health')).status).toBe(200);
}));

test('builtin mode with public metrics: no credentials needed for /metrics only', () => withServer(builtinServer({ SVC_SERVER_METRICS: 'public' }), async (s) => {
  expect((await s.get('/metrics')).status).toBe(200);
  expectError(await s.get('/dags'), 401, 'unauthorized');
}));

test('SVC_AUTH_TOKEN_TTL sets the lifetime of the JWTs', () => withServer(builtinServer({ SVC_AUTH_TOKEN_TTL: '1h30m' }), async (s) => {
  const r = await s.req('POST', '/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
  const claims = decodeJwt(r.body.token);
  expect(claims.exp! - claims.iat!).toBe(5400);
  expect(Date.parse(r.body.expiresAt)).toBe(claims.exp! * 1000);
}));

test('a token signed with another secret is refused', () => withServer(builtinServer(), async (s) => {
  const other = builtinServer({ SVC_AUTH_TOKEN_SECRET: 'another-secret-0123456789-abcdefghijkl' });
  await other.start();
  try {
    const foreign = await login(other, 'admin', ADMIN_PASSWORD);
    expectError(await s.req('GET', '/auth/me', undefined, bearer(foreign)), 401, 'unauthorized');
  } finally {
    await other.stop();
  }
}));
