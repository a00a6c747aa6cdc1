/**
 * The admin pages in a real browser against a server with builtin authentication: users (create with a
 * role, change the role, reset the password, disable, delete; the server's refusals of an admin's own
 * deletion and of demoting the last admin shown as it words them), API keys (the key shown once with a
 * Copy button, working, never shown again, revoked), webhooks (the token shown once, enabled and
 * disabled, regenerated, deleted; on the admin page and on the DAG page's Webhook tab), and that a user
 * below admin finds none of it.
 */
import type { Browser, Page } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { chromiumMissing, context, ensureUiBuilt, launch, logIn, shot } from './browser.js';

const PASSWORD = 'ui-admin-password';

describeWith('chromium', chromiumMissing, 'the admin pages of the web UI', () => {
  const t = new TestServer({ SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: 'ui-admin-secret-'.repeat(4), SVC_AUTH_ADMIN_PASSWORD: PASSWORD });
  let browser: Browser;
  let auth: Record<string, string>;

  beforeAll(async () => {
    ensureUiBuilt();
    t.dag('hello', 'steps:\n  - name: greet\n    command: echo hello\n');
    await t.start();
    browser = await launch();
    auth = { authorization: `Bearer ${(await t.req('POST', '/auth/login', { username: 'admin', password: PASSWORD })).body.token as string}` };
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t.stop();
  });

  async function loggedIn(username: string, password: string, path: string): Promise<Page> {
    const ctx = await context(browser);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => { throw e; });
    await p.goto(`${t.url}${path}`);
    await logIn(p, username, password);
    return p;
  }

  const userNamed = async (name: string) =>
    ((await t.req('GET', '/users', undefined, auth)).body.users as Array<{ username: string; role: string; isDisabled: boolean }>).find((u) => u.username === name);
  const loginStatus = async (username: string, password: string) => (await t.req('POST', '/auth/login', { username, password })).status;

  async function until(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the server never saw the change');
  }

  test('users: create with a role, change it, reset the password, disable, delete; the server\'s refusals shown', async () => {
    const p = await loggedIn('admin', PASSWORD, '/');
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    await p.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    const row = (name: string) => p.getByRole('table', { name: 'Users' }).locator(`tr[data-user="${name}"]`);
    await row('admin').getByText('(you)').waitFor();

    await p.getByRole('button', { name: 'New user' }).click();
    const dialog = p.getByRole('dialog', { name: 'New user' });
    await dialog.getByLabel('Username').fill('alice');
    await dialog.getByLabel('Password').fill('short');
    expect(await dialog.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Password').fill('alice-password-1');
    await dialog.getByLabel('Role').selectOption('operator');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await row('alice').waitFor();
    expect((await userNamed('alice'))?.role).toBe('operator');
    expect(await loginStatus('alice', 'alice-password-1')).toBe(200);

    await p.getByLabel('Role of alice').selectOption('manager');
    expect((await userNamed('alice'))?.role).toBe('operator'); // nothing is sent before Save
    await p.getByRole('button', { name: 'Save the role of alice' }).click();
    await p.getByRole('button', { name: 'Save the role of alice' }).waitFor({ state: 'detached' });
    await until(async () => (await userNamed('alice'))?.role === 'manager');

    await p.getByRole('button', { name: 'Reset the password of alice' }).click();
    const reset = p.getByRole('dialog', { name: 'Reset the password of alice' });
    await reset.getByLabel('New password').fill('alice-password-2');
    await reset.getByRole('button', { name: 'Set password' }).click();
    await reset.waitFor({ state: 'hidden' });
    expect(await loginStatus('alice', 'alice-password-2')).toBe(200);
    expect(await loginStatus('alice', 'alice-password-1')).toBe(401);

    await p.getByRole('button', { name: 'Disable alice' }).click();
    await row('alice').getByText('disabled', { exact: true }).waitFor();
    expect(await loginStatus('alice', 'alice-password-2')).toBe(401);
    await p.getByRole('button', { name: 'Enable alice' }).click();
    await row('alice').getByText('enabled', { exact: true }).waitFor();

    // The server refuses an admin's own deletion, and demoting the last admin: its words are shown.
    await p.getByRole('button', { name: 'Delete admin' }).click();
    const selfDelete = p.getByRole('dialog', { name: 'Delete admin?' });
    await selfDelete.getByRole('button', { name: 'Delete' }).click();
    await selfDelete.getByRole('alert').filter({ hasText: 'you cannot delete your own account' }).waitFor();
    await selfDelete.getByRole('button', { name: 'Cancel' }).click();
    await p.getByLabel('Role of admin').selectOption('viewer');
    await p.getByRole('button', { name: 'Save the role of admin' }).click();
    await p.getByRole('alert').filter({ hasText: 'this is the last enabled admin' }).waitFor();
    await p.waitForFunction(() => (document.querySelector('select[aria-label="Role of admin"]') as HTMLSelectElement | null)?.value === 'admin');
    expect((await userNamed('admin'))?.role).toBe('admin');
    await p.screenshot({ path: shot('admin-users'), fullPage: true });

    await p.getByRole('button', { name: 'Delete alice' }).click();
    await p.getByRole('dialog', { name: 'Delete alice?' }).getByRole('button', { name: 'Delete' }).click();
    await row('alice').waitFor({ state: 'detached' });
    expect(await userNamed('alice')).toBeUndefined();
    await p.context().close();
  });

  test('API keys: the key shown once with a Copy button, working, never shown again, revoked', async () => {
    const p = await loggedIn('admin', PASSWORD, '/admin/api-keys');
    await p.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await p.getByText('No API keys.').waitFor();
    await p.getByRole('button', { name: 'New API key' }).click();
    const dialog = p.getByRole('dialog', { name: 'New API key' });
    await dialog.getByLabel('Name').fill('deploy-bot');
    await dialog.getByLabel('Description').fill('Starts the nightly DAGs');
    await dialog.getByLabel('Role').selectOption('operator');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const field = dialog.getByLabel('API key', { exact: true });
    await field.waitFor();
    const key = await field.inputValue();
    expect(key).toMatch(/^svc_/);
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByText('Copied to the clipboard.').waitFor();
    expect(await p.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await p.screenshot({ path: shot('api-key-created') });

    const me = await t.req('GET', '/auth/me', undefined, { authorization: `Bearer ${key}` });
    expect(me.status).toBe(200);
    expect(me.body.user.role).toBe('operator');

    await dialog.getByRole('button', { name: 'Done' }).click();
    const row = p.getByRole('table', { name: 'API keys' }).locator('tr[data-key="deploy-bot"]');
    await row.getByText('Starts the nightly DAGs').waitFor();
    await row.getByText(`${key.slice(0, 8)}`, { exact: false }).waitFor();
    expect(await p.content()).not.toContain(key);
    await p.reload();
    await row.waitFor();
    expect(await p.content()).not.toContain(key);
    await p.screenshot({ path: shot('admin-api-keys'), fullPage: true });

    await p.getByLabel('Role of key deploy-bot').selectOption('viewer');
    await p.getByRole('button', { name: 'Save the role of key deploy-bot' }).click();
    await until(async () => (await t.req('GET', '/auth/me', undefined, { authorization: `Bearer ${key}` })).body.user?.role === 'viewer');

    await p.getByRole('button', { name: 'Revoke deploy-bot' }).click();
    await p.getByRole('dialog', { name: 'Revoke deploy-bot?' }).getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await t.req('GET', '/auth/me', undefined, { authorization: `Bearer ${key}` })).status).toBe(401);
    await p.context().close();
  });

  test('webhooks: the token shown once with a curl example, disabled and enabled, regenerated on the DAG tab, deleted', async () => {
    const trigger = async (token: string) => (await t.req('POST', '/webhooks/hello', { payload: { from: 'ui-test' } }, { authorization: `Bearer ${token}` })).status;
    const p = await loggedIn('admin', PASSWORD, '/admin/webhooks');
    await p.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await p.getByText('No DAG has a webhook yet.').waitFor();
    await p.getByLabel('DAG', { exact: true }).selectOption('hello');
    const panel = p.getByRole('region', { name: 'Webhook of hello' });
    await panel.getByText('hello has no webhook').waitFor();
    await panel.getByRole('button', { name: 'Create webhook' }).click();

    const shown = p.getByRole('dialog', { name: 'Webhook token of hello' });
    const token = await shown.getByLabel('Webhook token', { exact: true }).inputValue();
    expect(token).toMatch(/^svc_wh_/);
    const curl = await shown.getByLabel('curl example with the token', { exact: true }).textContent();
    expect(curl).toContain(`curl -X POST '${t.url}/api/v2/webhooks/hello'`);
    expect(curl).toContain(`Authorization: Bearer ${token}`);
    await p.screenshot({ path: shot('webhook-token') });
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'hidden' });
    expect(await p.content()).not.toContain(token);
    await p.getByRole('table', { name: 'Webhooks' }).locator('tr[data-webhook="hello"]').getByText('enabled').waitFor();
    expect(await panel.getByLabel('Webhook URL', { exact: true }).textContent()).toBe(`${t.url}/api/v2/webhooks/hello`);
    expect(await panel.getByLabel('curl example', { exact: true }).textContent()).toContain('Bearer <token>');
    expect(await trigger(token)).toBe(200);
    await p.screenshot({ path: shot('admin-webhooks'), fullPage: true });

    const toggle = panel.getByRole('switch', { name: 'Webhook of hello enabled' });
    await toggle.click();
    await p.locator('[data-webhook="disabled"]').waitFor();
    await p.getByRole('table', { name: 'Webhooks' }).locator('tr[data-webhook="hello"]').getByText('disabled').waitFor();
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    expect(await trigger(token)).toBe(403);
    await toggle.click();
    await p.locator('[data-webhook="enabled"]').waitFor();
    expect(await trigger(token)).toBe(200);

    // The same panel on the DAG page's Webhook tab.
    await p.goto(`${t.url}/dags/hello`);
    await p.getByRole('link', { name: 'Webhook', exact: true }).click();
    const tab = p.getByRole('region', { name: 'Webhook of hello' });
    await tab.locator('xpath=self::*[@data-webhook="enabled"]').waitFor();
    await tab.getByRole('button', { name: 'Regenerate token' }).click();
    await p.getByRole('dialog', { name: 'Regenerate the token of hello?' }).getByRole('button', { name: 'Regenerate' }).click();
    const fresh = await p.getByRole('dialog', { name: 'Webhook token of hello' }).getByLabel('Webhook token', { exact: true }).inputValue();
    expect(fresh).toMatch(/^svc_wh_/);
    expect(fresh).not.toBe(token);
    expect(await trigger(token)).toBe(401);
    expect(await trigger(fresh)).toBe(200);
    await p.getByRole('dialog', { name: 'Webhook token of hello' }).getByRole('button', { name: 'Done' }).click();
    await p.screenshot({ path: shot('dag-webhook'), fullPage: true });

    await tab.getByRole('button', { name: 'Delete webhook' }).click();
    await p.getByRole('dialog', { name: 'Delete the webhook of hello?' }).getByRole('button', { name: 'Delete' }).click();
    await tab.getByText('hello has no webhook').waitFor();
    expect((await t.req('GET', '/dags/hello/webhook', undefined, auth)).status).toBe(404);
    expect(await trigger(fresh)).toBe(401);
    await p.context().close();
  });

  test('below admin: no admin links, no Webhook tab, the pages say so (and the server refuses)', async () => {
    expect((await t.req('POST', '/users', { username: 'mgr', password: 'manager-password-1', role: 'manager' }, auth)).status).toBe(201);
    const p = await loggedIn('mgr', 'manager-password-1', '/dags/hello');
    await p.getByRole('heading', { level: 1, name: 'hello' }).waitFor();
    await p.getByRole('link', { name: 'Spec' }).waitFor();
    expect(await p.getByRole('link', { name: 'Webhook', exact: true }).count()).toBe(0);
    const nav = p.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Workers' }).waitFor();
    for (const name of ['Users', 'API keys', 'Webhooks']) expect(await nav.getByRole('link', { name }).count()).toBe(0);
    await p.goto(`${t.url}/dags/hello?tab=webhook`);
    await p.getByRole('heading', { name: 'Latest run' }).waitFor();
    expect(await p.getByRole('region', { name: 'Webhook of hello' }).count()).toBe(0);
    for (const path of ['/admin/users', '/admin/api-keys', '/admin/webhooks']) {
      await p.goto(`${t.url}${path}`);
      await p.getByText('This page needs the admin role.').waitFor();
    }
    const token = (await t.req('POST', '/auth/login', { username: 'mgr', password: 'manager-password-1' })).body.token as string;
    for (const path of ['/users', '/api-keys', '/webhooks']) expect((await t.req('GET', path, undefined, { authorization: `Bearer ${token}` })).status).toBe(403);
    await p.context().close();
  });
});
