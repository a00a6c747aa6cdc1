/**
 * The runs list's filters in a real browser against the real server: the tag expression (SPEC 2.9) and
 * the date range, each applied by the server, kept in the address and still there after a reload.
 */
import type { Browser, Page } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { chromiumMissing, context, ensureUiBuilt, launch, shot } from './browser.js';

/** A local day as the date input writes it (YYYY-MM-DD), `offset` days from today. */
function day(offset: number): string {
  const d = new Date();
  d.setDate(d.getDate() + offset);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

describeWith('chromium', chromiumMissing, 'the runs list: tags and date range filters', () => {
  const t = new TestServer();
  let browser: Browser;

  beforeAll(async () => {
    ensureUiBuilt();
    t.dag('alpha', 'tags: [env=prod, team-a]\nsteps:\n  - name: one\n    command: echo a\n');
    t.dag('beta', 'tags: env=dev\nsteps:\n  - name: one\n    command: echo b\n');
    await t.start();
    for (const [dag, id] of [['alpha', 'alpha-1'], ['beta', 'beta-1']] as const) {
      expect((await t.post(`/dags/${dag}/start`, { dagRunId: id })).status).toBe(200);
    }
    for (const [dag, id] of [['alpha', 'alpha-1'], ['beta', 'beta-1']] as const) {
      await waitFor(async () => (await t.get(`/dag-runs/${dag}/${id}`)).body.dagRun?.statusLabel === 'succeeded');
    }
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t.stop();
  });

  async function page(): Promise<Page> {
    const p = await (await context(browser)).newPage();
    p.on('pageerror', (e) => { throw e; });
    return p;
  }

  /** Waits until the table lists exactly these runs. */
  async function listed(p: Page, ids: string[]): Promise<void> {
    const rows = p.getByRole('table', { name: 'Runs' }).locator('tbody tr');
    await p.getByText(`${ids.length} runs`, { exact: true }).waitFor();
    for (const id of ids) await rows.and(p.locator(`[data-run="${id}"]`)).waitFor();
    expect((await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run')))).sort()).toEqual([...ids].sort());
  }

  test('the tag expression, in the address', async () => {
    const p = await page();
    await p.goto(`${t.url}/dag-runs`);
    await listed(p, ['alpha-1', 'beta-1']);
    const tags = p.getByLabel('Tags');
    await tags.fill('env=prod');
    await listed(p, ['alpha-1']);
    expect(new URL(p.url()).searchParams.get('tags')).toBe('env=prod');
    await p.screenshot({ path: shot('runs-tags') });
    await tags.fill('!team-a');
    await listed(p, ['beta-1']);
    await tags.fill('env=*');
    await listed(p, ['alpha-1', 'beta-1']);
    await tags.fill('env=prod,!team-a');
    await listed(p, []);
    await tags.fill('');
    await listed(p, ['alpha-1', 'beta-1']);
    expect(new URL(p.url()).searchParams.has('tags')).toBe(false);
    // A bookmarked address: the filter is applied and shown.
    await p.goto(`${t.url}/dag-runs?tags=${encodeURIComponent('team-a')}`);
    await listed(p, ['alpha-1']);
    expect(await tags.inputValue()).toBe('team-a');
    await p.context().close();
  });

  test('the date range, in the address', async () => {
    const p = await page();
    await p.goto(`${t.url}/dag-runs`);
    await listed(p, ['alpha-1', 'beta-1']);
    const from = p.getByLabel('From');
    const to = p.getByLabel('To');
    await from.fill(day(1));
    await listed(p, []);
    expect(new URL(p.url()).searchParams.get('from')).toBe(day(1));
    await from.fill(day(0));
    await listed(p, ['alpha-1', 'beta-1']);
    await to.fill(day(-1));
    await listed(p, []);
    await from.fill(day(-1));
    await listed(p, []);
    await to.fill(day(0));
    await listed(p, ['alpha-1', 'beta-1']);
    const at = new URL(p.url()).searchParams;
    expect([at.get('from'), at.get('to')]).toEqual([day(-1), day(0)]);
    // With another filter, and after a reload.
    await p.getByLabel('DAG').fill('beta');
    await listed(p, ['beta-1']);
    await p.reload();
    await listed(p, ['beta-1']);
    expect([await from.inputValue(), await to.inputValue()]).toEqual([day(-1), day(0)]);
    await p.goto(`${t.url}/dag-runs?to=${day(-1)}`);
    await listed(p, []);
    await p.context().close();
  });
});

async function waitFor(ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in 30 s');
}
