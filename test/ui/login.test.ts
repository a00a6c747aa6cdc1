/**
 * The UI under builtin authentication: the server's 401 brings up the login page; a wrong password is
 * said so; a right one shows the page asked for, keeps the token across a reload, and logging out
 * brings the login page back.
 */
import type { Browser } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { chromiumMissing, context, ensureUiBuilt, launch, shot } from './browser.js';

const PASSWORD = 'ui-test-password';

describeWith('chromium', chromiumMissing, 'the web UI with builtin authentication', () => {
  const t = new TestServer({ SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: 'ui-test-secret-'.repeat(4), SVC_AUTH_ADMIN_PASSWORD: PASSWORD });
  let browser: Browser;

  beforeAll(async () => {
    ensureUiBuilt();
    t.dag('hello', 'steps:\n  - name: greet\n    command: echo hello\n');
    await t.start();
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t.stop();
  });

  test('log in, stay logged in across a reload, log out', async () => {
    const ctx = await context(browser);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => { throw e; });
    await p.goto(`${t.url}/dags/hello`);
    const login = p.getByRole('button', { name: 'Log in' });
    await login.waitFor();

    await p.getByLabel('Username').fill('admin');
    await p.getByLabel('Password').fill('not-the-password');
    await login.click();
    await p.getByRole('alert').filter({ hasText: 'Wrong username or password' }).waitFor();
    await p.getByLabel('Password').fill('');
    await p.screenshot({ path: shot('login') });

    await p.getByLabel('Password').fill(PASSWORD);
    await login.click();
    await p.getByRole('heading', { level: 1, name: 'hello' }).waitFor();
    expect(new URL(p.url()).pathname).toBe('/dags/hello');

    await p.reload();
    await p.getByRole('heading', { level: 1, name: 'hello' }).waitFor();
    await p.getByText('admin · admin').waitFor();
    // An admin has the controls a viewer does not (next test).
    await p.getByRole('button', { name: 'Start', exact: true }).waitFor();
    await p.getByRole('switch', { name: 'Schedule of hello' }).waitFor();

    await p.getByRole('button', { name: 'Log out' }).click();
    await login.waitFor();
    await ctx.close();
  });

  test('a viewer sees the DAGs and runs but no control that would change them', async () => {
    const admin = (await t.req('POST', '/auth/login', { username: 'admin', password: PASSWORD })).body.token as string;
    const auth = { authorization: `Bearer ${admin}` };
    expect((await t.req('POST', '/users', { username: 'watcher', password: 'watcher-password-1', role: 'viewer' }, auth)).status).toBe(201);
    expect((await t.req('POST', '/dags/hello/start', { dagRunId: 'seen-1' }, auth)).status).toBe(200);
    const ctx = await context(browser);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => { throw e; });
    await p.goto(`${t.url}/dags/hello`);
    await p.getByLabel('Username').fill('watcher');
    await p.getByLabel('Password').fill('watcher-password-1');
    await p.getByRole('button', { name: 'Log in' }).click();
    await p.getByRole('heading', { level: 1, name: 'hello' }).waitFor();
    await p.getByText('watcher · viewer').waitFor();
    await p.locator('.run-summary[data-run="seen-1"]').waitFor();
    await p.locator('[data-schedule="on"]').waitFor();
    const controls = ['Start', 'Stop', 'Approve', 'Reject', 'Rename', 'Delete', 'Enqueue', 'Retry'];
    for (const name of controls) expect(await p.getByRole('button', { name, exact: true }).count()).toBe(0);
    expect(await p.getByRole('switch').count()).toBe(0);
    await p.goto(`${t.url}/dags`);
    await p.locator('tr[data-dag="hello"]').waitFor();
    expect(await p.getByRole('switch').count()).toBe(0);
    expect(await p.getByRole('link', { name: 'New DAG' }).count()).toBe(0);
    // The spec is there to read, not to change.
    await p.goto(`${t.url}/dags/hello?tab=spec`);
    const editor = p.getByRole('textbox', { name: 'Spec of hello (YAML)' });
    await editor.waitFor();
    await p.getByText('Read-only: your role cannot change DAGs.').waitFor();
    expect(await editor.getAttribute('aria-readonly')).toBe('true');
    await editor.click();
    await p.keyboard.insertText('oops');
    expect(await editor.textContent()).not.toContain('oops');
    expect(await p.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await p.goto(`${t.url}/dag-runs/hello/seen-1?step=greet`);
    await p.getByRole('heading', { level: 1, name: 'Run seen-1' }).waitFor();
    await p.locator('.run-summary [data-status="succeeded"]').waitFor({ timeout: 30_000 });
    await p.getByLabel('stdout of greet').waitFor();
    for (const name of ['Stop', 'Retry', 'Retry step', 'Set status']) expect(await p.getByRole('button', { name, exact: true }).count()).toBe(0);
    await p.screenshot({ path: shot('viewer') });
    await ctx.close();
  });

  test('an operator runs DAGs (Start, Enqueue, Retry, Set status) but does not change them (no New DAG, Rename, Delete, Save)', async () => {
    const admin = (await t.req('POST', '/auth/login', { username: 'admin', password: PASSWORD })).body.token as string;
    const auth = { authorization: `Bearer ${admin}` };
    expect((await t.req('POST', '/users', { username: 'runner', password: 'runner-password-1', role: 'operator' }, auth)).status).toBe(201);
    expect((await t.req('POST', '/dags/hello/start', { dagRunId: 'run-by-admin' }, auth)).status).toBe(200);
    const ctx = await context(browser);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => { throw e; });
    await p.goto(`${t.url}/dags/hello`);
    await p.getByLabel('Username').fill('runner');
    await p.getByLabel('Password').fill('runner-password-1');
    await p.getByRole('button', { name: 'Log in' }).click();
    await p.getByText('runner · operator').waitFor();
    await p.locator('.run-summary[data-run="run-by-admin"] [data-status="succeeded"]').waitFor({ timeout: 30_000 });
    for (const name of ['Start', 'Enqueue', 'Retry']) await p.getByRole('button', { name, exact: true }).waitFor();
    for (const name of ['Rename', 'Delete']) expect(await p.getByRole('button', { name, exact: true }).count()).toBe(0);
    // A finished run's step: retried, or its status set by hand (operator).
    await p.goto(`${t.url}/dag-runs/hello/run-by-admin?step=greet`);
    await p.getByLabel('stdout of greet').waitFor();
    for (const name of ['Retry step', 'Set status']) await p.getByRole('button', { name, exact: true }).waitFor();
    await p.goto(`${t.url}/dags/hello`);
    await p.locator('.run-summary[data-run="run-by-admin"]').waitFor();
    await p.getByRole('link', { name: 'Spec' }).click();
    await p.getByText('Read-only: your role cannot change DAGs.').waitFor();
    expect(await p.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await p.goto(`${t.url}/dags`);
    await p.locator('tr[data-dag="hello"]').waitFor();
    expect(await p.getByRole('link', { name: 'New DAG' }).count()).toBe(0);
    await ctx.close();
  });
});
