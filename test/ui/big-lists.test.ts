/**
 * Big lists and long logs in a real browser against the real server: 1,500 DAGs (two pages of the
 * server's paging, every one reachable), 1,200 runs (virtual rows: a window of them in the DOM, the next
 * pages read as the end scrolls into view, down to the oldest), a 5,000-line step log paged through
 * (its tail first, earlier pages, the head, back to the tail), and a running step's tail followed live.
 */
import type { Browser, Page } from 'playwright-core';
import { makeRun } from '../../src/adapters/store/conformance.js';
import { LocalRunStore } from '../../src/adapters/store/local/run-store.js';
import { RunStatus } from '../../src/core/run/status.js';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { eventually } from '../helpers/wait.js';
import { chromiumMissing, ensureUiBuilt, launch, newPage } from './browser.js';

const DAGS = 1500;
const RUNS = 1200;
/** More rows than this in the DOM means the rows are not virtual (a page holds up to 1,000). */
const WINDOW = 100;
const pad = (i: number, n = 4) => String(i).padStart(n, '0');

/** RUNS finished runs of DAG `bulk`, a second apart, written through the store before the server starts. */
async function seedRuns(dataDir: string): Promise<void> {
  let i = 0;
  const store = new LocalRunStore({ dataDir, clock: { now: () => Date.parse('2026-01-01T00:00:00Z') + i * 1000 } });
  for (; i < RUNS; i++) {
    await store.create(makeRun({ dagName: 'bulk', dagRunId: `run-${pad(i, 5)}`, status: RunStatus.Succeeded, startedAt: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString() }));
  }
  store.close();
}

describeWith('chromium', chromiumMissing, 'big lists and long logs in a browser', () => {
  const t = new TestServer();
  let browser: Browser;

  beforeAll(async () => {
    ensureUiBuilt();
    for (let i = 0; i < DAGS; i++) t.dag(`big-${pad(i)}`, `description: DAG ${i}\nsteps:\n  - command: "true"\n`);
    t.dag('long-log', 'steps:\n  - name: count\n    command: seq 1 5000\n');
    t.dag('growing', 'steps:\n  - name: grow\n    command: seq 1 2500; sleep 6; seq 2501 2600\n');
    await seedRuns(t.dataDir);
    await t.start();
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t.stop();
  });

  const page = () => newPage(browser);

  const rowsIn = (p: Page, sel: string) => p.locator(sel).count();

  /** Scrolls to the page's end until `sel` is in the DOM (each scroll may read another page). */
  async function scrollTo(p: Page, sel: string): Promise<void> {
    await eventually(async () => {
      await p.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      return (await rowsIn(p, sel)) > 0;
    }, sel, 60_000, 200);
  }

  test('1,500 DAGs: a page of 1,000 as virtual rows, the next page from the server, the last DAG reached', async () => {
    const p = await page();
    const asked: URL[] = [];
    p.on('request', (r) => { const u = new URL(r.url()); if (u.pathname === '/api/v2/dags') asked.push(u); });
    await p.goto(`${t.url}/dags`);
    await p.locator('tr[data-dag="big-0000"]').waitFor();
    const pager = p.getByRole('navigation', { name: 'DAG pages' });
    await pager.getByText('1000 of 1502 DAGs, page 1 of 2').waitFor();
    expect(await rowsIn(p, 'tr[data-dag]')).toBeLessThan(WINDOW);
    expect(await p.getByRole('table', { name: 'DAGs' }).getAttribute('aria-rowcount')).toBe('1001');
    await scrollTo(p, 'tr[data-dag="big-0999"]');
    expect(await p.locator('tr[data-dag="big-0999"]').getAttribute('aria-rowindex')).toBe('1001');
    expect(await rowsIn(p, 'tr[data-dag]')).toBeLessThan(WINDOW);
    expect(await rowsIn(p, 'tr[data-dag="big-1000"]')).toBe(0);

    await pager.getByRole('button', { name: 'Next page' }).click();
    await p.locator('tr[data-dag="big-1000"]').waitFor();
    expect(new URL(p.url()).searchParams.get('page')).toBe('2');
    await pager.getByText('502 of 1502 DAGs, page 2 of 2').waitFor();
    await scrollTo(p, 'tr[data-dag="big-1499"]');
    expect(asked.map((u) => [u.searchParams.get('page'), u.searchParams.get('perPage')])).toEqual(expect.arrayContaining([[null, '1000'], ['2', '1000']]));
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await p.locator('tr[data-dag="big-0000"]').waitFor();
    await p.context().close();
  });

  test('1,200 runs: a window of rows in the DOM, older pages read while scrolling, down to the oldest run', async () => {
    const p = await page();
    await p.goto(`${t.url}/dag-runs?name=bulk`);
    await p.locator(`tr[data-run="run-${pad(RUNS - 1, 5)}"]`).waitFor();
    expect(await rowsIn(p, 'tr[data-run]')).toBeLessThan(WINDOW);
    await scrollTo(p, 'tr[data-run="run-00000"]');
    const table = p.getByRole('table', { name: 'Runs' });
    expect(await table.getAttribute('aria-rowcount')).toBe(String(RUNS + 1));
    expect(await p.locator('tr[data-run="run-00000"]').getAttribute('aria-rowindex')).toBe(String(RUNS + 1));
    expect(await rowsIn(p, 'tr[data-run]')).toBeLessThan(WINDOW);
    await p.getByText(`${RUNS} runs`, { exact: true }).waitFor();
    await p.context().close();
  });

  /** The pager's words, then the first and last line of the page shown. */
  async function logShows(p: Page, words: string, first: number, last: number): Promise<void> {
    await p.getByRole('navigation', { name: 'Log pages' }).getByText(words).waitFor();
    await eventually(async () => {
      const text = (await p.locator('pre.log[data-stream="stdout"]').textContent()) ?? '';
      const lines = text.trimEnd().split('\n');
      return lines[0] === String(first) && lines.at(-1) === String(last);
    }, `log lines ${first}-${last}`);
  }

  test('a 5,000-line step log: its tail first, then earlier pages, the head, later, and back to the tail', async () => {
    const id = (await t.post('/dags/long-log/start', {})).body.dagRunId as string;
    await eventually(async () => (await t.get(`/dag-runs/long-log/${id}`)).body.dagRun.statusLabel === 'succeeded', 'long-log succeeded');
    const p = await page();
    await p.goto(`${t.url}/dag-runs/long-log/${id}?step=count`);
    const pages = p.getByRole('navigation', { name: 'Log pages' });
    await logShows(p, 'Lines 3001–5000 of 5000 (the latest, followed)', 3001, 5000);
    expect(await pages.getByRole('button', { name: 'Latest' }).isDisabled()).toBe(true);
    await pages.getByRole('button', { name: 'Earlier' }).click();
    await logShows(p, 'Lines 1001–3000 of 5000', 1001, 3000);
    await pages.getByRole('button', { name: 'Earlier' }).click();
    await logShows(p, 'Lines 1–2000 of 5000', 1, 2000);
    expect(await pages.getByRole('button', { name: 'Earlier' }).isDisabled()).toBe(true);
    expect(await pages.getByRole('button', { name: 'First' }).isDisabled()).toBe(true);
    await pages.getByRole('button', { name: 'Later' }).click();
    await logShows(p, 'Lines 2001–4000 of 5000', 2001, 4000);
    await pages.getByRole('button', { name: 'Later' }).click();
    await logShows(p, 'Lines 4001–5000 of 5000', 4001, 5000);
    expect(await pages.getByRole('button', { name: 'Later' }).isDisabled()).toBe(true);
    await pages.getByRole('button', { name: 'First' }).click();
    await logShows(p, 'Lines 1–2000 of 5000', 1, 2000);
    await pages.getByRole('button', { name: 'Latest' }).click();
    await logShows(p, 'Lines 3001–5000 of 5000 (the latest, followed)', 3001, 5000);
    await p.context().close();
  });

  test("a running step's tail is followed live: new lines come in without a reload", async () => {
    const id = (await t.post('/dags/growing/start', {})).body.dagRunId as string;
    await eventually(async () => (await t.get(`/dag-runs/growing/${id}/steps/grow/log?tail=1`)).body.totalLines === 2500, 'the first 2,500 lines');
    const p = await page();
    await p.goto(`${t.url}/dag-runs/growing/${id}?step=grow`);
    await logShows(p, 'Lines 501–2500 of 2500 (the latest, followed)', 501, 2500);
    expect((await t.get(`/dag-runs/growing/${id}`)).body.dagRun.statusLabel).toBe('running');
    await logShows(p, 'Lines 601–2600 of 2600 (the latest, followed)', 601, 2600);
    await p.context().close();
  });
});
