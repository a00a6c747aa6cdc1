/** Servers in builtin mode and small helpers for the authentication tests. */
import type { EngineLogger } from '../../../src/core/ports/engine-ports.js';
import { consoleLogger } from '../../../src/observability/console-logger.js';
import { TestServer, type Reply } from '../../helpers/server.js';

export const SECRET = 'test-secret-0123456789-abcdefghijklmnop';
export const ADMIN_PASSWORD = 'admin-pass-1234';

export const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
export const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });

export function builtinServer(env: Record<string, string> = {}): TestServer {
  return new TestServer({
    SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: SECRET, SVC_AUTH_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env,
  });
}

export async function login(srv: TestServer, username: string, password: string): Promise<string> {
  const r = await srv.req('POST', '/auth/login', { username, password });
  if (r.status !== 200) throw new Error(`login of ${username} failed: ${r.status} ${r.text}`);
  return r.body.token as string;
}

/** Creates a user as the admin and returns its id and a JWT. */
export async function userWithRole(srv: TestServer, admin: string, username: string, role: string, password = `${username}-password`): Promise<{ id: string; token: string }> {
  const r = await srv.req('POST', '/users', { username, password, role }, bearer(admin));
  if (r.status !== 201) throw new Error(`creating ${username} failed: ${r.status} ${r.text}`);
  return { id: r.body.user.id, token: await login(srv, username, password) };
}

export async function apiKeyWithRole(srv: TestServer, admin: string, name: string, role: string): Promise<{ id: string; key: string }> {
  const r = await srv.req('POST', '/api-keys', { name, role }, bearer(admin));
  if (r.status !== 201) throw new Error(`creating API key ${name} failed: ${r.status} ${r.text}`);
  return { id: r.body.apiKey.id, key: r.body.key };
}

export function expectError(r: Reply, status: number, code: string): void {
  expect([r.status, r.body?.code]).toEqual([status, code]);
  expect(typeof r.body.message).toBe('string');
}

/** A TestServer whose log lines (every level) are kept in `logs`. */
export class CapturingServer extends TestServer {
  readonly logs: string[] = [];

  protected override logger(): EngineLogger {
    return consoleLogger('debug', (l) => void this.logs.push(l));
  }
}
