/**
 * The UI tests' browser and built UI: Debian's `chromium` (CHROMIUM_PATH overrides), driven headless by
 * playwright-core, against a TestServer that serves dist/ui. The UI is built first when dist/ui is
 * missing or older than a source file of src/ui (`npm run build` has usually done it already).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const ROOT = new URL('../../', import.meta.url).pathname;
const UI_SRC = join(ROOT, 'src/ui');
const UI_INDEX = join(ROOT, 'dist/ui/index.html');
/**
 * Where the pages' screenshots go: docs/ui (linked from docs/ui.md) when SVC_UI_SCREENSHOTS=1 (how the
 * docs are refreshed), else a temp directory, so a test run leaves the work tree as it was.
 */
export const SHOTS_DIR = process.env.SVC_UI_SCREENSHOTS === '1' ? join(ROOT, 'docs/ui') : join(tmpdir(), 'svc-ui-shots');

/** The chromium executable, or undefined. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => Boolean(p));
  return candidates.find((p) => existsSync(p));
}

export const chromiumMissing = chromiumPath() ? undefined : "Debian's chromium is not installed (apt-get install chromium, as .ci/run does), nor CHROMIUM_PATH set";

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Builds dist/ui unless it is there and newer than every file of src/ui. */
export function ensureUiBuilt(): void {
  if (existsSync(UI_INDEX) && statSync(UI_INDEX).mtimeMs >= newest(UI_SRC)) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'hack/ui.mjs'), 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building the UI failed (node hack/ui.mjs build):\n${r.stdout}\n${r.stderr}`);
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export async function context(browser: Browser, colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, reducedMotion: 'reduce' });
  ctx.setDefaultTimeout(15_000);
  return ctx;
}

/** A page in a fresh context whose uncaught errors fail the test. */
export async function newPage(browser: Browser): Promise<Page> {
  const p = await (await context(browser)).newPage();
  p.on('pageerror', (e) => { throw e; });
  return p;
}

/** The path of a screenshot of docs/ui (linked from docs/ui.md). */
export function shot(name: string): string {
  mkdirSync(SHOTS_DIR, { recursive: true });
  return join(SHOTS_DIR, `${name}.png`);
}

/** Logs in on the login page the app shows, and waits until the sidebar names the user. */
export async function logIn(p: Page, username: string, password: string): Promise<void> {
  await p.getByLabel('Username').fill(username);
  await p.getByLabel('Password').fill(password);
  await p.getByRole('button', { name: 'Log in' }).click();
  await p.getByText(`${username} · `).waitFor();
}
