/**
 * remoteNode forwarding forwards exactly the path the access policy checked: two real servers in builtin
 * mode, the second the remote of the first, reached with the node's own (admin) token. A viewer of the
 * first cannot reach an admin-only route of the remote (/users) by a path that the URL parser or the
 * remote resolves into another route: dot segments, encoded dots, encoded slashes, backslashes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/server.js';
import { ADMIN_PASSWORD, bearer, builtinServer, login, userWithRole } from '../auth/harness.js';
import { raw } from './raw.js';

let local: TestServer;
let remote: TestServer;
let viewer: string;

beforeAll(async () => {
  remote = await builtinServer({ SVC_AUTH_TOKEN: 'node-secret-0123456789' }).start();
  const cfg = join(remote.dir, 'local-config.yaml');
  writeFileSync(cfg, `remoteNodes:\n  - {name: far, apiBaseURL: "${remote.url}/api/v2", authToken: node-secret-0123456789}\n`);
  local = await builtinServer({ SVC_CONFIG: cfg }).start();
  const admin = await login(local, 'admin', ADMIN_PASSWORD);
  viewer = (await userWithRole(local, admin, 'vera', 'viewer')).token;
});
afterAll(async () => {
  await local?.stop();
  await remote?.stop();
});

test('the viewer reads through the node, and is refused the node\'s admin-only routes', async () => {
  const dags = await local.req('GET', '/dags?remoteNode=far', undefined, bearer(viewer));
  expect([dags.status, dags.headers.get('x-svc-remote-node')]).toEqual([200, 'far']);
  expect((await local.req('GET', '/users?remoteNode=far', undefined, bearer(viewer))).status).toBe(403);
});

test.each([
  ['a dot segment', '/api/v2/dag-runs/../users'],
  ['a single dot segment', '/api/v2/dag-runs/./users'],
  ['a dot segment and a trailing slash', '/api/v2/dag-runs/../users/'],
  ['encoded dots', '/api/v2/dag-runs/%2e%2e/users'],
  ['encoded dots in capitals', '/api/v2/dag-runs/%2E%2E/users'],
  ['a half-encoded dot segment', '/api/v2/dag-runs/.%2e/users'],
  ['an encoded slash', '/api/v2/dags/..%2fusers'],
  ['an encoded backslash', '/api/v2/dag-runs/x/..%5c..%5cusers'],
  ['a backslash', '/api/v2/dag-runs/x/..\\..\\users'],
])('%s is refused with 400 and never forwarded (%s)', async (_what, path) => {
  const r = await raw(local.url, 'GET', `${path}?remoteNode=far`, bearer(viewer));
  expect(r.status).toBe(400);
  expect(r.body).toEqual({ code: 'bad_request', message: expect.stringContaining('not forwarded') });
  expect(r.headers['x-svc-remote-node']).toBeUndefined();
  expect(r.text).not.toContain('"username"');
});
