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

    await p.getByRole('button', { name: 'Log out' }).click();
    await login.waitFor();
    await ctx.close();
  });
});
