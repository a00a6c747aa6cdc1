/**
 * Failed logins (docs/auth.md "Failed logins"): 4 free failures, then the name is locked (429 with
 * Retry-After, even for the right password) while other users, tokens and the rest of the API go on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/server.js';
import { ADMIN_PASSWORD, bearer, builtinServer, expectError, login, userWithRole } from './harness.js';

let srv: TestServer;
let admin: string;

beforeAll(async () => {
  srv = await builtinServer().start();
  admin = await login(srv, 'admin', ADMIN_PASSWORD);
  await userWithRole(srv, admin, 'target', 'viewer', 'target-pass-1');
  await userWithRole(srv, admin, 'bystander', 'viewer', 'bystander-pass-1');
});
afterAll(async () => srv?.stop());

const attempt = (username: string, password: string) => srv.req('POST', '/auth/login', { username, password });

test('the 5th failure locks the name: 429 with Retry-After, even with the right password', async () => {
  for (let i = 1; i <= 5; i++) expectError(await attempt('target', `wrong-${i}-password`), 401, 'unauthorized');
  for (const pw of ['target-pass-1', 'wrong-again-1']) {
    const r = await attempt('TARGET', pw);
    expectError(r, 429, 'too_many_requests');
    const wait = Number(r.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(30);
    expect(r.body.details.retryAfterSeconds).toBe(wait);
  }
});

test('meanwhile other users log in, tokens work and the API answers', async () => {
  expect(await login(srv, 'bystander', 'bystander-pass-1')).toEqual(expect.any(String));
  expect((await srv.req('GET', '/dags', undefined, bearer(admin))).status).toBe(200);
  expect((await srv.get('/health')).status).toBe(200);
});

test('unknown names are throttled the same way (no hint whether a user exists)', async () => {
  for (let i = 0; i < 5; i++) expectError(await attempt('ghost', 'nothing-here'), 401, 'unauthorized');
  expectError(await attempt('ghost', 'nothing-here'), 429, 'too_many_requests');
});

test('hashing runs off the event loop: /health answers while a burst of logins is being hashed', async () => {
  const order: string[] = [];
  const logins = Array.from({ length: 12 }, (_v, i) => attempt(`burst-${i}`, 'wrong-password').then(() => order.push('login')));
  await new Promise((r) => setImmediate(r));
  const health = srv.get('/health').then((r) => { order.push('health'); return r.status; });
  expect(await health).toBe(200);
  await Promise.all(logins);
  expect(order.indexOf('health')).toBeLessThan(order.length - 1);
});

test('failures and locks are audited without the attempted passwords', () => {
  const dir = join(srv.dataDir, 'audit');
  const text = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')).join('');
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  const mine = lines.filter((l) => l.target.toLowerCase() === 'target' && l.action === 'auth.login' && l.outcome === 'failure');
  expect(mine.map((l) => l.details.reason)).toEqual(['wrong password', 'wrong password', 'wrong password', 'wrong password', 'wrong password', 'locked', 'locked']);
  expect(mine[4].details.lockedForSeconds).toBe(30);
  expect(mine.every((l) => l.outcome === 'failure' && typeof l.source === 'string' && typeof l.time === 'string')).toBe(true);
  expect(text).not.toMatch(/wrong-\d-password|target-pass-1|nothing-here/);
});
