/**
 * The role matrix: every row of the policy table (auth/policy.ts), called with no credentials, a wrong
 * token, an expired JWT, a disabled user's JWT, a webhook token, and each role through a JWT, an API key
 * and the static token: 401, 403, or through to the route (2xx or a domain error) as the table says.
 * Plus: the table covers every route the real app has, and docs/auth.md shows the same table.
 */
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import { roleAtLeast, ROLES, type Role } from '../../../src/core/auth/roles.js';
import { POLICY, type PolicyRule } from '../../../src/auth/policy.js';
import { JWT_AUDIENCE, JWT_ISSUER } from '../../../src/auth/tokens.js';
import type { TestServer } from '../../helpers/server.js';
import { ADMIN_PASSWORD, apiKeyWithRole, bearer, builtinServer, login, SECRET, userWithRole } from './harness.js';

const STATIC = 'static-token-value-0123456789';
const PARAMS: Record<string, string> = {
  fileName: 'missing', name: 'missing', dagRunId: 'none', stepName: 's1', userId: 'no-such-user', keyId: 'no-such-key', subDAGRunId: 'none',
};
const concrete = (path: string) => path.replace(/:(\w+)/g, (_m, p: string) => PARAMS[p] ?? 'x');

let srv: TestServer;
const creds: { label: string; header: Record<string, string>; role?: Role }[] = [];

beforeAll(async () => {
  srv = await builtinServer({ SVC_AUTH_TOKEN: STATIC }).start();
  const admin = await login(srv, 'admin', ADMIN_PASSWORD);
  const adminId = (await srv.req('GET', '/auth/me', undefined, bearer(admin))).body.user.id as string;
  const expired = await new SignJWT({ ver: 1 }).setProtectedHeader({ alg: 'HS256' }).setSubject(adminId).setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE).setIssuedAt(Math.floor(Date.now() / 1000) - 7200).setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
    .sign(new TextEncoder().encode(SECRET));
  const disabled = await userWithRole(srv, admin, 'disabled-admin', 'admin');
  expect((await srv.req('PATCH', `/users/${disabled.id}`, { isDisabled: true }, bearer(admin))).status).toBe(200);
  srv.dag('hooked', 'steps:\n  - command: "true"\n');
  const hook = await srv.req('POST', '/dags/hooked/webhook', {}, bearer(admin));
  expect(hook.status).toBe(201);
  creds.push(
    { label: 'no credentials', header: {} },
    { label: 'a wrong token', header: bearer('not-a-valid-token') },
    { label: 'a wrong API key', header: bearer('svc_notARealKeyAtAll0123456789') },
    { label: 'an expired JWT', header: bearer(expired) },
    { label: "a disabled user's JWT", header: bearer(disabled.token) },
    { label: 'a webhook token', header: bearer(hook.body.token) },
    { label: 'basic credentials (ignored in builtin mode)', header: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` } },
    { label: 'the static token', header: bearer(STATIC), role: 'admin' },
  );
  for (const role of ROLES) {
    const u = role === 'admin' ? { token: admin } : await userWithRole(srv, admin, `matrix-${role}`, role);
    creds.push({ label: `a ${role} JWT`, header: bearer(u.token), role });
    creds.push({ label: `a ${role} API key`, header: bearer((await apiKeyWithRole(srv, admin, `matrix-${role}`, role)).key), role });
  }
});
afterAll(async () => srv?.stop());

function expected(rule: PolicyRule, role: Role | undefined): 'open' | 401 | 403 {
  const min = rule.access === 'metrics' ? 'viewer' : rule.access;
  if (min === 'public' || min === 'webhook' || min === 'ticket') return 'open';
  if (!role) return 401;
  return roleAtLeast(role, min) ? 'open' : 403;
}

/** A request; an event stream (which stays open) is read up to its status, then dropped. */
async function call(method: string, url: string, headers: Record<string, string>): Promise<{ status: number; body: any; text: string }> {
  if (!url.startsWith('/events/')) return srv.req(method, url, method === 'GET' || method === 'DELETE' ? undefined : {}, headers);
  const abort = new AbortController();
  const res = await fetch(`${srv.url}/api/v2${url}`, { headers, signal: abort.signal });
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    abort.abort();
    return { status: res.status, body: undefined, text: '' };
  }
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

test.each(POLICY.filter((r) => r.access !== 'webhook').map((r) => [r.method, r.path, r] as const))('%s %s', async (method, path, rule) => {
  const url = concrete(path);
  const seen: string[] = [];
  for (const c of creds) {
    const r = await call(method, url, c.header);
    const want = expected(rule, c.role);
    const got = r.status === 401 || r.status === 403 ? r.status : 'open';
    seen.push(`${c.label}: ${got === want ? 'ok' : `expected ${want}, got ${r.status} ${r.text.slice(0, 120)}`}`);
    if (got !== 'open') expect(r.body.code).toBe(got === 401 ? 'unauthorized' : 'forbidden');
    expect(r.status).not.toBe(500);
  }
  expect(seen.filter((s) => !s.endsWith(': ok'))).toEqual([]);
});

test('the webhook trigger takes its own token only: other credentials are refused by the route', async () => {
  const admin = creds.find((c) => c.label === 'the static token')!.header;
  expect((await srv.req('POST', '/webhooks/hooked', {}, creds.find((c) => c.label === 'a webhook token')!.header)).status).toBe(200);
  expect((await srv.req('POST', '/webhooks/hooked', {}, admin)).status).toBe(401);
  expect((await srv.req('POST', '/webhooks/hooked', {})).status).toBe(401);
});

/** [method, path] of every route of the app under /api/v2 (express 5 router stack). */
function appRoutes(): string[] {
  const out: string[] = [];
  const walk = (stack: any[]) => {
    for (const l of stack) {
      if (l.route) for (const m of Object.keys(l.route.methods)) if (m !== '_all') out.push(`${m.toUpperCase()} ${l.route.path}`);
      if (l.name === 'router') walk(l.handle.stack);
    }
  };
  const api = (srv.server.app as any).router.stack.find((l: any) => l.name === 'router' && l.rawPath === '/api/v2');
  walk(api.handle.stack);
  return [...new Set(out)].sort();
}

test('every route of the app has a row in the policy table, and every row is a route of the app', () => {
  const routes = appRoutes();
  expect(routes.length).toBeGreaterThan(50);
  const rows = POLICY.map((r) => `${r.method} ${r.path}`).sort();
  expect(routes.filter((r) => !rows.includes(r))).toEqual([]);
  expect(rows.filter((r) => !routes.includes(r))).toEqual([]);
});

test('docs/auth.md shows the same table', () => {
  const doc = readFileSync(new URL('../../../docs/auth.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| (\w+) \|/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
  const code = POLICY.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')} ${r.access}`);
  expect(rows).toEqual(code);
});
