/**
 * OIDC login in the browser, end to end: the login page's OIDC button (GET /auth/oidc), a real OpenID
 * Provider on loopback (npm oidc-provider, the auth tests' fixture), the server's callback and its redirect
 * to /login#token=...: the UI keeps the token as a builtin login does, drops it from the address and opens
 * the page the user was on. A login the server refuses comes back as /login#error=... and is shown.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { CLIENT_ID, CLIENT_SECRET, freePort, TestProvider } from '../api/auth/oidc-op.js';
import { chromiumMissing, context, ensureUiBuilt, launch, shot } from './browser.js';

describeWith('chromium', chromiumMissing, 'the web UI with OIDC login', () => {
  const op = new TestProvider();
  let t: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    ensureUiBuilt();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    await op.start([`${base}/oidc-callback`]);
    Object.assign(op.accounts, {
      alice: { email: 'alice@example.com', email_verified: true, groups: ['ops'] },
      mallory: { email: 'mallory@evil.com', email_verified: true, groups: ['ops'] },
    });
    t = new TestServer({
      SVC_PORT: String(port), SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: 'ui-oidc-secret-'.repeat(4), SVC_AUTH_ADMIN_PASSWORD: 'ui-admin-password',
      SVC_AUTH_OIDC_CLIENT_ID: CLIENT_ID, SVC_AUTH_OIDC_CLIENT_SECRET: CLIENT_SECRET, SVC_AUTH_OIDC_CLIENT_URL: base, SVC_AUTH_OIDC_ISSUER: op.issuer,
    });
    const cfg = join(t.dir, 'config.yaml');
    writeFileSync(cfg, ['auth:', '  oidc:', '    allowedDomains: [example.com]', '    buttonLabel: Sign in with Test', '    roleMapping:', '      groupMappings: {ops: operator}'].join('\n'));
    t.env.SVC_CONFIG = cfg;
    t.dag('hello', 'steps:\n  - name: greet\n    command: echo hello\n');
    await t.start();
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await op.stop();
  });

  test('the OIDC button logs in through the provider and comes back to the page asked for', async () => {
    const ctx = await context(browser);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => { throw e; });
    await p.goto(`${t.url}/dags/hello?tab=spec`);
    const button = p.getByRole('link', { name: 'Sign in with Test' });
    await button.waitFor();
    await p.screenshot({ path: shot('login-oidc') });

    op.next = 'alice';
    await button.click();
    await p.getByRole('heading', { level: 1, name: 'hello' }).waitFor();
    // Back where the user was, with the token out of the address.
    const at = new URL(p.url());
    expect(`${at.pathname}${at.search}${at.hash}`).toBe('/dags/hello?tab=spec');
    await p.getByText('alice@example.com · operator').waitFor();
    // An operator's controls, and no manager's.
    await p.getByRole('button', { name: 'Start', exact: true }).waitFor();
    expect(await p.getByRole('button', { name: 'Delete', exact: true }).count()).toBe(0);
    // Kept as a builtin login's token: the server takes it, and a reload keeps the session.
    const token = await p.evaluate(() => localStorage.getItem('svc.token'));
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await t.req('GET', '/auth/me', undefined, { authorization: `Bearer ${token}` })).body.user).toMatchObject({ username: 'alice@example.com', role: 'operator' });
    await p.reload();
    await p.getByText('alice@example.com · operator').waitFor();
    await ctx.close();
  });

  test('a login the server refuses comes back as an error on the login page', async () => {
    const ctx = await context(browser);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => { throw e; });
    await p.goto(`${t.url}/dags`);
    op.next = 'mallory';
    await p.getByRole('link', { name: 'Sign in with Test' }).click();
    await p.getByRole('alert').filter({ hasText: 'OIDC login failed' }).filter({ hasText: 'not allowed' }).waitFor();
    expect(new URL(p.url()).pathname).toBe('/login');
    expect(new URL(p.url()).hash).toBe('');
    expect(await p.evaluate(() => localStorage.getItem('svc.token'))).toBeNull();
    // The other ways in are still there.
    await p.getByRole('button', { name: 'Log in' }).waitFor();
    await p.getByRole('link', { name: 'Sign in with Test' }).waitFor();
    await ctx.close();
  });

  test('a forged or stale token in the address is not kept', async () => {
    const ctx = await context(browser);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => { throw e; });
    await p.goto(`${t.url}/login#token=not.a.token&expiresAt=2099-01-01T00:00:00Z`);
    await p.getByRole('alert').filter({ hasText: 'not started from this browser tab' }).waitFor();
    expect(await p.evaluate(() => localStorage.getItem('svc.token'))).toBeNull();
    await ctx.close();
  });

  test('a link carrying someone else\'s valid token does not replace the session', async () => {
    const victim = (await t.post('/auth/login', { username: 'admin', password: 'ui-admin-password' })).body.token as string;
    const auth = { authorization: `Bearer ${victim}` };
    expect((await t.req('POST', '/users', { username: 'mallet', password: 'mallet-password', role: 'viewer' }, auth)).status).toBe(201);
    const attacker = (await t.post('/auth/login', { username: 'mallet', password: 'mallet-password' })).body.token as string;
    const ctx = await context(browser);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => { throw e; });
    await p.goto(`${t.url}/login`);
    await p.evaluate((token) => localStorage.setItem('svc.token', token), victim);
    // The link opens as a new page load, as one clicked in a mail or on another site does.
    await p.goto('about:blank');
    await p.goto(`${t.url}/login#token=${encodeURIComponent(attacker)}&expiresAt=2099-01-01T00:00:00Z`);
    await p.getByRole('alert').filter({ hasText: 'not started from this browser tab' }).waitFor();
    expect(new URL(p.url()).hash).toBe('');
    expect(await p.evaluate(() => localStorage.getItem('svc.token'))).toBe(victim);
    await ctx.close();
  });
});
