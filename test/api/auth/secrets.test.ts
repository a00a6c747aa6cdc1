/**
 * No secret leaks: after logins, password changes, API keys, webhooks, runs and failed attempts, no
 * response (other than the one that hands a secret out), log line, audit line, outputs.json or stored
 * file contains a password, a full API key, a webhook token, a JWT, the token secret, the static token or
 * the OIDC client secret.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, type Reply } from '../../helpers/server.js';
import { kubectl } from '../../testbed/helpers.js';
import { ADMIN_PASSWORD, bearer, CapturingServer, SECRET } from './harness.js';

const STATIC = 'static-token-never-shown-42';
const OIDC_SECRET = 'oidc-client-secret-never-shown-42';
const secrets: string[] = [ADMIN_PASSWORD, SECRET, STATIC, OIDC_SECRET];
const responses: Reply[] = [];
let srv: CapturingServer;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

beforeAll(async () => {
  srv = new CapturingServer({
    SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: SECRET, SVC_AUTH_ADMIN_PASSWORD: ADMIN_PASSWORD, SVC_AUTH_TOKEN: STATIC,
    SVC_AUTH_OIDC_CLIENT_ID: 'svc', SVC_AUTH_OIDC_CLIENT_SECRET: OIDC_SECRET, SVC_AUTH_OIDC_CLIENT_URL: 'http://127.0.0.1:9', SVC_AUTH_OIDC_ISSUER: 'http://127.0.0.1:9',
    SVC_AUTH_BASIC_USERNAME: 'basic-user', SVC_AUTH_BASIC_PASSWORD: 'basic-password-never-shown',
  });
  secrets.push('basic-password-never-shown');
  await srv.start();
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const r = await srv.req(method, path, body, token ? bearer(token) : {});
    responses.push(r);
    return r;
  };
  const loginRes = await srv.req('POST', '/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
  const admin = loginRes.body.token as string;
  secrets.push(admin);
  await call('POST', '/auth/login', { username: 'admin', password: 'wrong-password-attempt' });
  secrets.push('wrong-password-attempt');
  await call('POST', '/users', { username: 'sam', password: 'sam-first-pass', role: 'operator' }, admin);
  const sam = (await srv.req('POST', '/auth/login', { username: 'sam', password: 'sam-first-pass' })).body.token as string;
  const changed = await srv.req('POST', '/auth/change-password', { currentPassword: 'sam-first-pass', newPassword: 'sam-second-pass' }, bearer(sam));
  secrets.push('sam-first-pass', 'sam-second-pass', sam, changed.body.token);
  const users = await call('GET', '/users', undefined, admin);
  const samId = users.body.users.find((u: { username: string }) => u.username === 'sam').id;
  await call('PUT', `/users/${samId}/password`, { newPassword: 'sam-third-pass' }, admin);
  secrets.push('sam-third-pass');
  const key = await srv.req('POST', '/api-keys', { name: 'deploy', role: 'operator' }, bearer(admin));
  secrets.push(key.body.key);
  await call('GET', '/api-keys', undefined, admin);
  await call('GET', `/api-keys/${key.body.apiKey.id}`, undefined, key.body.key);
  await call('GET', '/auth/me', undefined, key.body.key);
  srv.dag('leaky', ['steps:', '  - name: dump', '    command: env', '    output: ENV_DUMP'].join('\n'));
  const hook = await srv.req('POST', '/dags/leaky/webhook', {}, bearer(admin));
  const regenerated = await srv.req('POST', '/dags/leaky/webhook/regenerate', {}, bearer(admin));
  secrets.push(hook.body.token, regenerated.body.token);
  await call('GET', '/dags/leaky/webhook', undefined, admin);
  await call('GET', '/webhooks', undefined, admin);
  await call('POST', '/webhooks/leaky', { dagRunId: 'hooked-run' }, regenerated.body.token);
  await call('POST', '/webhooks/leaky', { dagRunId: 'stale-token-run' }, hook.body.token);
  await eventually(async () => (await srv.req('GET', '/dag-runs/leaky/hooked-run', undefined, bearer(admin))).body.dagRun?.statusLabel === 'succeeded', 'the webhook run');
  await call('GET', '/dag-runs/leaky/hooked-run/outputs', undefined, admin);
  await call('GET', '/dag-runs/leaky/hooked-run/log', undefined, admin);
  await call('GET', '/metrics', undefined, STATIC);
  await call('GET', '/dags', undefined, 'svc_wh_not-a-real-token');
  await call('GET', '/auth/oidc');
  await srv.stop();
});

test('the secrets are real values (the test would prove nothing otherwise)', () => {
  expect(secrets.every((s) => typeof s === 'string' && s.length >= 8)).toBe(true);
  expect(secrets.length).toBeGreaterThanOrEqual(14);
});

test('no response carries a secret it did not hand out', () => {
  const text = responses.map((r) => `${r.text}\n${JSON.stringify([...r.headers])}`).join('\n');
  for (const s of secrets) expect([s, text.includes(s)]).toEqual([s, false]);
});

test('no log line carries a secret', () => {
  expect(srv.logs.length).toBeGreaterThan(0);
  const text = srv.logs.join('');
  for (const s of secrets) expect([s, text.includes(s)]).toEqual([s, false]);
});

/**
 * Everything stored: the data directory's files (embedded: all state; kubernetes: the logs, outputs and
 * audit the test processes keep there), and on kubernetes the auth Secrets, Dags and DagRuns.
 */
async function stored(): Promise<Array<[string, string]>> {
  const local = files(srv.dataDir).map((f): [string, string] => [f, readFileSync(f, 'utf8')]);
  if (!srv.kube) return local;
  const records = await Promise.all((['users', 'api-keys', 'webhooks'] as const).map(async (k): Promise<[string, string]> => [`Secret svc-${k}`, await srv.storedRecords(k)]));
  const objects = await Promise.all(['dags', 'dagruns'].map(async (kind): Promise<[string, string]> => [kind, (await kubectl(['get', kind, '-n', srv.server.namespace!, '-o', 'json'])).stdout]));
  return [...local, ...records, ...objects];
}

test('nothing stored (users, API keys, webhooks, audit, runs, logs, outputs.json; Secrets and resources on kubernetes) carries a secret', async () => {
  const all = await stored();
  const names = all.map(([n]) => n);
  expect(names.some((f) => f.endsWith('outputs.json'))).toBe(true);
  expect(names.some((f) => f.includes(`${join('audit', 'audit-')}`))).toBe(true);
  if (srv.kube) {
    expect(all.find(([n]) => n === 'Secret svc-users')![1]).toContain('"username":"sam"');
    expect(all.find(([n]) => n === 'dagruns')![1]).toContain('hooked-run');
  } else expect(names.some((f) => f.endsWith('users.json'))).toBe(true);
  for (const [f, text] of all) {
    for (const s of secrets) expect([f, s, text.includes(s)]).toEqual([f, s, false]);
  }
});

test('the step environment carries none of the authentication settings', () => {
  const outputs = files(srv.dataDir).filter((f) => f.endsWith('outputs.json')).map((f) => readFileSync(f, 'utf8')).join('');
  expect(outputs).toContain('DAG_NAME=leaky');
  expect(outputs).not.toContain('SVC_AUTH');
});
