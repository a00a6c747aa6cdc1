/**
 * The UI with the keyboard alone, in a real browser: on the DAG list (with the main navigation), a DAG's
 * page, its Start dialog and a run's page, Tab reaches every interactive control on screen, each one
 * shows a focus indication when reached, and a dialog closes with Escape and gives focus back to the
 * control that opened it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { eventually } from '../helpers/wait.js';
import { chromiumMissing, ensureUiBuilt, launch, newPage, ROOT } from './browser.js';

/** What a keyboard user can reach, as the browser decides (a tabindex of -1 is reachable by script only). */
const INTERACTIVE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

interface Stop {
  /** The control's mark (set by markControls), or null for what has none (the page itself). */
  id: string | null;
  what: string;
  /** Whether it matches :focus-visible and draws an outline or a ring. */
  indicated: boolean;
  inDialog: boolean;
}

/** Marks every enabled, rendered interactive control inside `scope` (data-kb); returns their descriptions. */
function markControls(p: Page, scope: string): Promise<Record<string, string>> {
  return p.evaluate(([sel, within]) => {
    const out: Record<string, string> = {};
    let i = 0;
    for (const el of document.querySelector(within)!.querySelectorAll<HTMLElement>(sel)) {
      if ((el as HTMLButtonElement).disabled || !el.checkVisibility() || el.closest('[inert]')) continue;
      el.dataset.kb = String(i);
      out[String(i++)] = `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`;
    }
    return out;
  }, [INTERACTIVE, scope] as const);
}

/** Where focus is after a Tab: which control, and whether the user can see that it has focus. */
function focused(p: Page): Promise<Stop> {
  return p.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { id: null, what: 'the page', indicated: false, inDialog: false };
    const s = getComputedStyle(el);
    const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
    return { id: el.dataset.kb ?? null, what: el.outerHTML.slice(0, 100), indicated: el.matches(':focus-visible') && ring, inDialog: Boolean(el.closest('dialog[open]')) };
  });
}

/** Tabs from the start of the page until focus comes back to a control already reached (the cycle). */
async function tabCycle(p: Page, limit = 300): Promise<Stop[]> {
  const stops: Stop[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < limit; i++) {
    await p.keyboard.press('Tab');
    const s = await focused(p);
    if (s.id !== null && seen.has(s.id)) return stops;
    if (s.id !== null) seen.add(s.id);
    stops.push(s);
  }
  throw new Error(`Tab did not come back to a control in ${limit} presses`);
}

/** Every marked control is reached by Tab, each with a visible focus indication. */
async function expectAllReachable(p: Page, scope: string): Promise<Stop[]> {
  const controls = await markControls(p, scope);
  expect(Object.keys(controls).length).toBeGreaterThan(1);
  await p.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const stops = await tabCycle(p);
  const reached = new Set(stops.map((s) => s.id));
  expect(Object.entries(controls).filter(([id]) => !reached.has(id)).map(([, what]) => what)).toEqual([]);
  expect(stops.filter((s) => s.id !== null && !s.indicated).map((s) => s.what)).toEqual([]);
  return stops;
}

describeWith('chromium', chromiumMissing, 'the UI with the keyboard', () => {
  const t = new TestServer();
  let browser: Browser;
  let runId = '';

  beforeAll(async () => {
    ensureUiBuilt();
    for (const f of ['hello', 'graph', 'scheduled']) t.dag(f, readFileSync(join(ROOT, 'examples', `${f}.yaml`), 'utf8'));
    await t.start();
    runId = (await t.post('/dags/hello/start', {})).body.dagRunId as string;
    await eventually(async () => (await t.get(`/dag-runs/hello/${runId}`)).body.dagRun.statusLabel === 'succeeded', 'hello succeeded');
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t.stop();
  });

  async function page(path: string, ready: string): Promise<Page> {
    const p = await newPage(browser);
    await p.goto(`${t.url}${path}`);
    await p.locator(ready).first().waitFor();
    return p;
  }

  test('the DAG list and the main navigation: every control reached by Tab, each showing focus', async () => {
    const p = await page('/dags', 'tr[data-dag="scheduled"]');
    const stops = await expectAllReachable(p, 'body');
    const order = stops.map((s) => s.what);
    // The skip link comes first, then the navigation, then the page.
    expect(order[0]).toMatch(/Skip to content/);
    expect(order.findIndex((w) => w.includes('href="/dags"'))).toBeLessThan(order.findIndex((w) => w.includes('Schedule of hello')));
    await p.context().close();
  });

  test("a DAG's page, then its Start dialog: reached by keyboard, focus kept inside, Escape closes it and focus returns", async () => {
    const p = await page('/dags/hello', 'h1');
    await p.getByRole('button', { name: 'Start', exact: true }).waitFor();
    await expectAllReachable(p, 'body');

    const start = p.getByRole('button', { name: 'Start', exact: true });
    await start.focus();
    await p.keyboard.press('Enter');
    const dialog = p.getByRole('dialog');
    await dialog.waitFor();
    const stops = await expectAllReachable(p, 'dialog[open]');
    expect(stops.filter((s) => s.id !== null && !s.inDialog)).toEqual([]);
    expect(stops.some((s) => /<(input|textarea)/.test(s.what))).toBe(true);
    await p.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await start.evaluate((el) => el === document.activeElement)).toBe(true);
    await p.context().close();
  });

  test("a run's page, and with a step's logs open: every control reached, each showing focus", async () => {
    const p = await page(`/dag-runs/hello/${runId}`, 'h1');
    await p.getByRole('table').first().waitFor();
    await expectAllReachable(p, 'body');
    await p.goto(`${t.url}/dag-runs/hello/${runId}?step=greet`);
    await p.getByRole('region', { name: /Logs of/ }).waitFor();
    await p.locator('pre.log').waitFor();
    await expectAllReachable(p, 'body');
    await p.context().close();
  });
});
