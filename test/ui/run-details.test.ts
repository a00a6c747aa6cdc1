/**
 * A run page's sub-DAG runs and manual step status, in a real browser against the real server: a parent
 * whose step calls a DAG once per item lists each child run live, each a link to the child's own page,
 * which links back to its parent; a failed step of a finished run set to succeeded by hand, confirmed in a
 * dialog first, and the run's status worked out again by the server. (Who sees "Set status": login.test.ts.)
 */
import type { Browser, Page } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { chromiumMissing, context, ensureUiBuilt, launch, shot } from './browser.js';

describeWith('chromium', chromiumMissing, 'a run page: sub-DAG runs, manual step status', () => {
  const t = new TestServer();
  let browser: Browser;

  beforeAll(async () => {
    ensureUiBuilt();
    t.dag('fan', 'steps:\n  - name: regions\n    call: region\n    parallel:\n      items: [north, south]\n    params: "REGION=${ITEM}"\n  - name: report\n    command: echo done\n    depends: regions\n');
    t.dag('region', 'params:\n  - REGION: none\nsteps:\n  - name: work\n    command: sleep 1; echo "processed $REGION"\n');
    t.dag('mixed', 'steps:\n  - name: fine\n    command: echo fine\n  - name: broken\n    command: "false"\n');
    await t.start();
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

  test('the sub-DAG runs of a run, live, each opening its own page', async () => {
    const p = await page();
    expect((await t.post('/dags/fan/start', { dagRunId: 'fan-1' })).status).toBe(200);
    await p.goto(`${t.url}/dag-runs/fan/fan-1`);
    const table = p.getByRole('table', { name: 'Sub-DAG runs' });
    await table.waitFor();
    // Both children appear, and end succeeded without a reload.
    await table.locator('tbody tr[data-status="succeeded"]').nth(1).waitFor({ timeout: 30_000 });
    await p.locator('.run-summary [data-status="succeeded"]').waitFor({ timeout: 30_000 });
    const subs = (await t.get('/dag-runs/fan/fan-1/sub-dag-runs')).body.subRuns as Array<{ dagRunId: string; name: string; params: string }>;
    expect(subs).toHaveLength(2);
    expect(await table.locator('tbody tr').count()).toBe(2);
    for (const s of subs) {
      const row = table.locator(`tr[data-run="${s.dagRunId}"]`);
      await row.getByText('regions').waitFor();
      await row.getByText(s.params).waitFor();
    }
    await p.screenshot({ path: shot('sub-runs'), fullPage: true });

    const north = subs.find((s) => s.params.includes('north'))!;
    await table.getByRole('link', { name: north.dagRunId }).click();
    await p.getByRole('heading', { level: 1, name: `Run ${north.dagRunId}` }).waitFor();
    expect(new URL(p.url()).pathname).toBe(`/dag-runs/region/${encodeURIComponent(north.dagRunId)}`);
    await p.locator('tr[data-step="work"] [data-status="succeeded"]').waitFor();
    await p.getByRole('button', { name: 'work', exact: true }).first().click();
    await p.getByLabel('stdout of work').getByText('processed north').waitFor();
    // A child has no children of its own, and links back to its parent.
    expect(await p.getByRole('table', { name: 'Sub-DAG runs' }).count()).toBe(0);
    await p.getByRole('link', { name: 'fan fan-1' }).click();
    await p.getByRole('heading', { level: 1, name: 'Run fan-1' }).waitFor();
    await p.context().close();
  });

  test("a finished run's step status set by hand, confirmed first; the run's status follows", async () => {
    expect((await t.post('/dags/mixed/start', { dagRunId: 'mixed-1' })).status).toBe(200);
    await waitFor(async () => (await t.get('/dag-runs/mixed/mixed-1')).body.dagRun?.statusLabel === 'failed');
    const p = await page();
    await p.goto(`${t.url}/dag-runs/mixed/mixed-1?step=broken`);
    await p.locator('.run-summary [data-status="failed"]').waitFor();

    // Cancel changes nothing.
    await p.getByRole('button', { name: 'Set status', exact: true }).click();
    const dialog = p.getByRole('dialog', { name: 'Set the status of step broken' });
    await dialog.getByText('is failed').waitFor();
    expect(await dialog.getByLabel('New status').inputValue()).toBe('4');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await t.get('/dag-runs/mixed/mixed-1')).body.dagRun.statusLabel).toBe('failed');

    await p.getByRole('button', { name: 'Set status', exact: true }).click();
    await dialog.getByLabel('New status').selectOption({ label: 'succeeded' });
    await p.screenshot({ path: shot('step-status') });
    await dialog.getByRole('button', { name: 'Set status', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await p.locator('tr[data-step="broken"] [data-status="succeeded"]').waitFor();
    await p.locator('.run-summary [data-status="succeeded"]').waitFor();
    const run = (await t.get('/dag-runs/mixed/mixed-1')).body.dagRun;
    expect(run.statusLabel).toBe('succeeded');
    expect(run.nodes.find((n: { step: { name: string } }) => n.step.name === 'broken').statusLabel).toBe('succeeded');

    // And back to failed: the run fails again.
    await p.getByRole('button', { name: 'Set status', exact: true }).click();
    expect(await dialog.getByLabel('New status').inputValue()).toBe('2');
    await dialog.getByRole('button', { name: 'Set status', exact: true }).click();
    await p.locator('.run-summary [data-status="failed"]').waitFor();
    expect((await t.get('/dag-runs/mixed/mixed-1')).body.dagRun.statusLabel).toBe('failed');
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
