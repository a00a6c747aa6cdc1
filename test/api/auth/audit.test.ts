/** The audit trail (SPEC 6 item 6): security events as JSON lines; SVC_AUDIT_ENABLED=false writes none. */
import { jest } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, type TestServer } from '../../helpers/server.js';
import { ADMIN_PASSWORD, bearer, builtinServer, login } from './harness.js';

function auditLines(srv: TestServer): Record<string, any>[] {
  const dir = join(srv.dataDir, 'audit');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n').filter(Boolean)).map((l) => JSON.parse(l));
}

test('logins, user changes, API key and webhook operations are audited with time, actor, action, target and source', async () => {
  const srv = await builtinServer().start();
  try {
    const admin = await login(srv, 'admin', ADMIN_PASSWORD);
    const as = (m: string, p: string, b?: unknown) => srv.req(m, p, b, bearer(admin));
    await srv.req('POST', '/auth/login', { username: 'admin', password: 'not-the-password' });
    const u = (await as('POST', '/users', { username: 'ann', password: 'ann-pass-123', role: 'viewer' })).body.user;
    await as('PUT', `/users/${u.id}`, { role: 'operator' });
    await as('PUT', `/users/${u.id}/password`, { newPassword: 'ann-pass-456' });
    await as('PATCH', `/users/${u.id}`, { isDisabled: true });
    await as('PATCH', `/users/${u.id}`, { isDisabled: false });
    await as('DELETE', `/users/${u.id}`);
    const k = (await as('POST', '/api-keys', { name: 'audited', role: 'viewer' })).body;
    await as('PATCH', `/api-keys/${k.apiKey.id}`, { role: 'operator' });
    await as('DELETE', `/api-keys/${k.apiKey.id}`);
    srv.dag('audited', 'steps:\n  - command: "true"\n');
    const hook = (await as('POST', '/dags/audited/webhook')).body;
    await as('POST', '/dags/audited/webhook/toggle', { enabled: false });
    await srv.req('POST', '/webhooks/audited', {}, bearer(hook.token));
    await as('POST', '/dags/audited/webhook/regenerate');
    await as('DELETE', '/dags/audited/webhook');
    // Webhook lines are written once the response has gone out.
    const lines = await eventually(async () => auditLines(srv).length >= 17 && auditLines(srv), 'the last audit line');
    const summary = lines.map((l) => `${l.action} ${l.actor} ${l.target ?? ''} ${l.outcome}`);
    expect(summary).toEqual([
      'user.create system admin success',
      'auth.login admin admin success',
      'auth.login admin admin failure',
      'user.create admin ann success',
      'user.role_change admin ann success',
      'user.password_reset admin ann success',
      'user.disable admin ann success',
      'user.enable admin ann success',
      'user.delete admin ann success',
      'apikey.create admin audited success',
      'apikey.update admin audited success',
      'apikey.delete admin audited success',
      'webhook.create admin audited success',
      'webhook.toggle admin audited success',
      'webhook.trigger webhook:audited audited failure',
      'webhook.regenerate admin audited success',
      'webhook.delete admin audited success',
    ]);
    for (const l of lines) expect(Date.parse(l.time)).not.toBeNaN();
    expect(lines.filter((l) => l.actor !== 'system').every((l) => /127\.0\.0\.1/.test(l.source))).toBe(true);
    expect(lines.find((l) => l.action === 'webhook.trigger')!.details.status).toBe(403);
    const text = JSON.stringify(lines);
    for (const s of [ADMIN_PASSWORD, 'not-the-password', 'ann-pass-123', 'ann-pass-456', k.key, hook.token, admin]) expect(text.includes(s)).toBe(false);
  } finally {
    await srv.stop();
  }
});

test('SVC_AUDIT_ENABLED=false: no audit file', async () => {
  const srv = await builtinServer({ SVC_AUDIT_ENABLED: 'false' }).start();
  try {
    await login(srv, 'admin', ADMIN_PASSWORD);
    await srv.req('POST', '/auth/login', { username: 'admin', password: 'nope-nope' });
    expect(auditLines(srv)).toEqual([]);
  } finally {
    await srv.stop();
  }
});

test('SVC_AUDIT_SINK=stdout (the chart sets it on Kubernetes): JSON lines on stdout, marked, no file', async () => {
  const written: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array) => { written.push(String(chunk)); return true; }) as typeof process.stdout.write);
  const srv = await builtinServer({ SVC_AUDIT_SINK: 'stdout' }).start();
  try {
    await srv.req('POST', '/auth/login', { username: 'admin', password: 'not-this-one' });
    const lines = await eventually(async () => {
      const audit = written.join('').split('\n').filter((l) => l.startsWith('{"kind":"svc-audit"')).map((l) => JSON.parse(l));
      return audit.some((l) => l.action === 'auth.login') && audit;
    }, 'an audit line on stdout');
    expect(lines.find((l) => l.action === 'auth.login')).toMatchObject({ kind: 'svc-audit', actor: 'admin', outcome: 'failure', time: expect.any(String) });
    expect(written.join('')).not.toContain('not-this-one');
    expect(auditLines(srv)).toEqual([]);
  } finally {
    spy.mockRestore();
    await srv.stop();
  }
});
