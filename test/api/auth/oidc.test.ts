/**
 * OIDC login end to end (SPEC 5.4) against a real OpenID Provider on loopback: svc's login redirect, the
 * provider's authorization endpoint and interaction, the callback, and the service JWT it yields.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/server.js';
import { ADMIN_PASSWORD, bearer, builtinServer, login } from './harness.js';
import { browse, CLIENT_ID, CLIENT_SECRET, freePort, TestProvider } from './oidc-op.js';

const op = new TestProvider();
let open: TestServer; // autoSignup, allowedDomains, whitelist, jq and group mappings
let strict: TestServer; // no sign-up, roleAttributeStrict, skipOrgRoleSync
let openUrl = '';
let strictUrl = '';

function server(port: number, yaml: string): TestServer {
  const s = builtinServer({ SVC_PORT: String(port) });
  const cfg = join(s.dir, 'config.yaml');
  writeFileSync(cfg, yaml);
  Object.assign(s.env, {
    SVC_CONFIG: cfg, SVC_AUTH_OIDC_CLIENT_ID: CLIENT_ID, SVC_AUTH_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    SVC_AUTH_OIDC_CLIENT_URL: `http://127.0.0.1:${port}`, SVC_AUTH_OIDC_ISSUER: op.issuer,
  });
  return s;
}

beforeAll(async () => {
  const [p1, p2] = [await freePort(), await freePort()];
  openUrl = `http://127.0.0.1:${p1}`;
  strictUrl = `http://127.0.0.1:${p2}`;
  await op.start([`${openUrl}/oidc-callback`, `${strictUrl}/oidc-callback`]);
  Object.assign(op.accounts, {
    alice: { email: 'alice@example.com', email_verified: true, groups: ['admins'] },
    bob: { email: 'bob@example.com', email_verified: true, groups: ['ops-team'] },
    carl: { email: 'carl@example.com', email_verified: true, groups: ['devs'], role: 'manager' },
    dora: { email: 'dora@example.com', email_verified: true },
    guest: { email: 'guest@other.org', email_verified: true },
    mallory: { email: 'mallory@evil.com', email_verified: true, groups: ['admins'] },
    unverified: { email: 'eve@example.com', email_verified: false },
    linked: { email: 'linked@example.com', email_verified: true, groups: ['admins'] },
    nobody: { email: 'nobody@example.com', email_verified: true, groups: ['admins'] },
  });
  open = await server(p1, [
    'auth:',
    '  oidc:',
    '    allowedDomains: [example.com]',
    '    whitelist: guest@other.org',
    '    buttonLabel: Sign in with Test',
    '    roleMapping:',
    '      groupMappings: {admins: admin, ops-team: operator}',
    '      roleAttributePath: \'if .role then .role else empty end\'',
  ].join('\n')).start();
  strict = await server(p2, [
    'auth:',
    '  oidc:',
    '    autoSignup: false',
    '    roleMapping:',
    '      groupMappings: {admins: admin}',
    '      roleAttributeStrict: true',
    '      skipOrgRoleSync: true',
  ].join('\n')).start();
});
afterAll(async () => {
  await open?.stop();
  await strict?.stop();
  await op.stop();
});

/** Logs `account` in through the browser flow; the fragment of the final redirect as a map. */
async function oidcLogin(base: string, account: string): Promise<Record<string, string>> {
  op.next = account;
  const final = await browse(`${base}/api/v2/auth/oidc/login`, `${base}/login`);
  return Object.fromEntries(new URLSearchParams(new URL(final).hash.slice(1)));
}

async function me(srv: TestServer, token: string) {
  return (await srv.req('GET', '/auth/me', undefined, bearer(token))).body.user;
}

test('GET /auth/oidc tells the UI about the button', async () => {
  expect((await open.get('/auth/oidc')).body).toEqual({ enabled: true, buttonLabel: 'Sign in with Test', loginUrl: '/api/v2/auth/oidc/login' });
});

test('the login redirect asks for the code with PKCE, state, nonce and the default scopes', async () => {
  const r = await fetch(`${openUrl}/api/v2/auth/oidc/login`, { redirect: 'manual' });
  expect(r.status).toBe(302);
  const to = new URL(r.headers.get('location')!);
  expect(to.origin).toBe(op.issuer);
  expect(Object.fromEntries(to.searchParams)).toMatchObject({
    client_id: CLIENT_ID, response_type: 'code', redirect_uri: `${openUrl}/oidc-callback`, scope: 'openid profile email', code_challenge_method: 'S256',
    state: expect.any(String), nonce: expect.any(String), code_challenge: expect.any(String),
  });
  expect(r.headers.get('set-cookie')).toMatch(/svc_oidc_state=.*HttpOnly.*SameSite=Lax/);
});

test('a first login creates the user with the role of its group and yields a service JWT', async () => {
  const f = await oidcLogin(openUrl, 'alice');
  expect(f.error).toBeUndefined();
  expect(f.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  expect(await me(open, f.token!)).toMatchObject({ username: 'alice@example.com', role: 'admin', authProvider: 'oidc', email: 'alice@example.com', hasPassword: false });
  expect((await open.req('GET', '/users', undefined, bearer(f.token!))).status).toBe(200);
});

test('role mapping: the jq expression first, then groups, then the default role', async () => {
  expect((await me(open, (await oidcLogin(openUrl, 'carl')).token!)).role).toBe('manager'); // .role via jq
  expect((await me(open, (await oidcLogin(openUrl, 'bob')).token!)).role).toBe('operator'); // group ops-team
  expect((await me(open, (await oidcLogin(openUrl, 'dora')).token!)).role).toBe('viewer'); // default
});

test('without skipOrgRoleSync the role follows the provider at every login', async () => {
  op.accounts.bob!.groups = ['admins'];
  expect((await me(open, (await oidcLogin(openUrl, 'bob')).token!)).role).toBe('admin');
  op.accounts.bob!.groups = ['ops-team'];
  expect((await me(open, (await oidcLogin(openUrl, 'bob')).token!)).role).toBe('operator');
});

test('allowedDomains and whitelist: other domains and unverified e-mails are refused, whitelisted ones pass', async () => {
  expect((await oidcLogin(openUrl, 'guest')).token).toEqual(expect.any(String));
  for (const who of ['mallory', 'unverified']) {
    const f = await oidcLogin(openUrl, who);
    expect(f.token).toBeUndefined();
    expect(f.error).toBe('access_denied');
    expect(f.error_description).toContain('not allowed');
  }
});

test('a disabled user cannot log in through OIDC', async () => {
  const admin = await login(open, 'admin', ADMIN_PASSWORD);
  const dora = (await open.req('GET', '/users', undefined, bearer(admin))).body.users.find((u: { username: string }) => u.username === 'dora@example.com');
  expect((await open.req('PATCH', `/users/${dora.id}`, { isDisabled: true }, bearer(admin))).status).toBe(200);
  const f = await oidcLogin(openUrl, 'dora');
  expect([f.token, f.error, f.error_description]).toEqual([undefined, 'access_denied', expect.stringContaining('disabled')]);
});

test('autoSignup off: an unknown user is refused; an existing user is linked and keeps a role given at first login', async () => {
  const unknown = await oidcLogin(strictUrl, 'nobody');
  expect(unknown.error_description).toContain('no account');
  const admin = await login(strict, 'admin', ADMIN_PASSWORD);
  expect((await strict.req('POST', '/users', { username: 'linked@example.com', password: 'local-pass-1', role: 'viewer' }, bearer(admin))).status).toBe(201);
  const first = await oidcLogin(strictUrl, 'linked');
  // skipOrgRoleSync: the existing account keeps its role; the OIDC identity is linked.
  expect(await me(strict, first.token!)).toMatchObject({ username: 'linked@example.com', role: 'viewer', authProvider: 'oidc', hasPassword: true });
  await login(strict, 'linked@example.com', 'local-pass-1'); // the local password still works
});

test('roleAttributeStrict: no matching role, no login', async () => {
  const admin = await login(strict, 'admin', ADMIN_PASSWORD);
  expect((await strict.req('POST', '/users', { username: 'dora@example.com', password: 'local-pass-1', role: 'viewer' }, bearer(admin))).status).toBe(201);
  const f = await oidcLogin(strictUrl, 'dora');
  expect(f.error_description).toContain('no role');
});

test('a callback from another browser, a replayed callback and a forged one are refused', async () => {
  op.next = 'alice';
  const jar = new Map<string, Map<string, string>>();
  const callback = await browse(`${openUrl}/api/v2/auth/oidc/login`, `${openUrl}/oidc-callback`, jar);
  const noCookie = await fetch(callback, { redirect: 'manual' });
  expect(noCookie.headers.get('location')).toContain('error=access_denied');
  // The state is single-use: the same callback with the right cookie is now refused too.
  const cookie = `svc_oidc_state=${new URL(callback).searchParams.get('state')}`;
  const replay = await fetch(callback, { redirect: 'manual', headers: { cookie } });
  expect(replay.headers.get('location')).toContain('error=access_denied');
  const forged = await fetch(`${openUrl}/oidc-callback?code=abc&state=made-up`, { redirect: 'manual', headers: { cookie: 'svc_oidc_state=made-up' } });
  expect(forged.headers.get('location')).toMatch(/#error=access_denied&error_description=unknown/);
  const refused = await fetch(`${openUrl}/oidc-callback?error=access_denied&state=x`, { redirect: 'manual' });
  expect(refused.headers.get('location')).toContain('refused');
});

test('OIDC logins are audited', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const dir = join(open.dataDir, 'audit');
  const lines = readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n')).map((l) => JSON.parse(l));
  expect(lines).toEqual(expect.arrayContaining([
    expect.objectContaining({ action: 'auth.login', actor: 'alice@example.com', outcome: 'success', details: expect.objectContaining({ method: 'oidc' }) }),
    expect.objectContaining({ action: 'auth.login', actor: 'mallory@evil.com', outcome: 'failure' }),
  ]));
});
