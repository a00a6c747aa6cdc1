/**
 * The web terminal page in a real browser against a server with builtin authentication and
 * SVC_TERMINAL_ENABLED: an admin finds it in the sidebar, its chunk (xterm.js) loads only then, types a
 * command with the keyboard and reads its output; the window's size reaches the shell; Shift+Esc leaves
 * the terminal for the page; closing the page ends the shell. A viewer finds no link, and the address
 * says the page needs the admin role. Screenshots in the light and dark themes.
 */
import type { Browser, Page } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { eventually, TestServer } from '../helpers/server.js';
import { chromiumMissing, context, ensureUiBuilt, launch, logIn, shot } from './browser.js';

const PASSWORD = 'ui-terminal-password';

describeWith('chromium', chromiumMissing, 'the web terminal page', () => {
  const t = new TestServer({ SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: 'ui-terminal-secret-'.repeat(3), SVC_AUTH_ADMIN_PASSWORD: PASSWORD, SVC_TERMINAL_ENABLED: 'true' });
  let browser: Browser;

  beforeAll(async () => {
    ensureUiBuilt();
    await t.start();
    browser = await launch();
    const admin = (await t.req('POST', '/auth/login', { username: 'admin', password: PASSWORD })).body.token as string;
    const made = await t.req('POST', '/users', { username: 'vic', password: 'vic-password-1', role: 'viewer' }, { authorization: `Bearer ${admin}` });
    expect(made.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t.stop();
  });

  async function loggedIn(username: string, password: string, path: string, scheme: 'light' | 'dark' = 'light'): Promise<{ p: Page; scripts: string[] }> {
    const p = await (await context(browser, scheme)).newPage();
    const scripts: string[] = [];
    p.on('request', (r) => { if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname); });
    p.on('pageerror', (e) => { throw e; });
    await p.goto(`${t.url}${path}`);
    await logIn(p, username, password);
    return { p, scripts };
  }

  /** The text the terminal shows (xterm.js's DOM renderer: one element per row). */
  const screen = (p: Page) => p.locator('.xterm-rows').innerText();
  const shows = (p: Page, re: RegExp) => eventually(async () => re.test(await screen(p)), `${re} on the terminal`, 15_000);

  test('an admin opens it from the sidebar, types a command and reads its output', async () => {
    const { p, scripts } = await loggedIn('admin', PASSWORD, '/');
    const link = p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Terminal' });
    await link.waitFor();
    expect(scripts.some((s) => s.includes('terminal-page'))).toBe(false);
    await link.click();
    await p.getByRole('heading', { level: 1, name: 'Terminal' }).waitFor();
    await p.getByRole('status').filter({ hasText: 'Connected.' }).waitFor();
    expect(scripts.some((s) => s.includes('terminal-page'))).toBe(true);
    // The terminal has the focus: typing goes to the shell.
    await p.keyboard.type('echo "from the $((6 * 7)) page: $(pwd)"');
    await p.keyboard.press('Enter');
    await shows(p, new RegExp(`from the 42 page: ${t.dagsDir}`));
    // The shell's size is the emulator's, fitted to the page (wider than the default 80 columns), and
    // follows the window.
    const size = async () => {
      await p.keyboard.type('clear; stty size');
      await p.keyboard.press('Enter');
      const m = await eventually(async () => /(?:^|\n)(\d+) (\d+)\n/.exec(await screen(p)) ?? undefined, 'the size stty prints');
      return { rows: Number(m[1]), cols: Number(m[2]) };
    };
    const wide = await size();
    expect(wide.rows).toBe(await p.locator('.xterm-rows > div').count());
    expect(wide.cols).toBeGreaterThan(80);
    await p.setViewportSize({ width: 900, height: 600 });
    await eventually(async () => (await size()).cols < wide.cols && (await p.locator('.xterm-rows > div').count()) < wide.rows, 'the shell to see the smaller window');
    await p.setViewportSize({ width: 1280, height: 800 });
    await p.keyboard.type('clear; echo "from the $((6 * 7)) page: $(pwd)"; ls -d /');
    await p.keyboard.press('Enter');
    await shows(p, /\n\/\n/);
    await p.screenshot({ path: shot('terminal'), fullPage: true });

    // Shift+Esc leaves the terminal for the page's button; the shell ends when the page goes.
    await p.keyboard.press('Shift+Escape');
    expect(await p.evaluate(() => document.activeElement?.textContent)).toBe('Restart session');
    await p.locator('.xterm-helper-textarea').focus();
    await p.keyboard.type('echo "pid:$$:"');
    await p.keyboard.press('Enter');
    const pid = Number(/pid:(\d+):/.exec((await eventually(async () => /pid:\d+:/.test(await screen(p)) && screen(p), 'the pid')))?.[1]);
    await p.context().close();
    await eventually(async () => { try { process.kill(pid, 0); return false; } catch { return true; } }, 'the shell to end with the page');
  });

  test('dark theme: the terminal takes the page\'s colours', async () => {
    const { p } = await loggedIn('admin', PASSWORD, '/terminal', 'dark');
    await p.getByRole('status').filter({ hasText: 'Connected.' }).waitFor();
    await p.keyboard.type('echo dark-theme-check');
    await p.keyboard.press('Enter');
    await shows(p, /\ndark-theme-check/);
    // The colour under the middle of the terminal: the first element there, or above it, that has one.
    const [page, term] = await p.evaluate(() => {
      const r = document.querySelector('.xterm-screen')!.getBoundingClientRect();
      let el: Element | null = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      while (el && getComputedStyle(el).backgroundColor === 'rgba(0, 0, 0, 0)') el = el.parentElement;
      return [getComputedStyle(document.documentElement).getPropertyValue('--surface').trim(), el ? getComputedStyle(el).backgroundColor : 'none'];
    });
    const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    expect(term).toBe(rgb(page!));
    await p.screenshot({ path: shot('terminal-dark'), fullPage: true });
    await p.context().close();
  });

  test('a viewer finds no Terminal link, and the address says it needs the admin role', async () => {
    const { p, scripts } = await loggedIn('vic', 'vic-password-1', '/');
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'DAGs' }).waitFor();
    expect(await p.getByRole('link', { name: 'Terminal' }).count()).toBe(0);
    await p.goto(`${t.url}/terminal`);
    await p.getByRole('alert').filter({ hasText: 'The terminal needs the admin role.' }).waitFor();
    expect(await p.locator('.xterm').count()).toBe(0);
    expect(scripts.length).toBeGreaterThan(0);
    await p.context().close();
  });
});
