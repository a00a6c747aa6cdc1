/**
 * Retry, Retry step, Enqueue and Dequeue in a real browser against the real server, each confirmed in a
 * dialog: a failed run retried (same id) succeeds once its cause is gone; one step retried alone; a retry
 * as a new run opens that run; runs enqueued from the DAG page, the second waiting in the queue, dequeued;
 * the queues page; a finished run's outputs with a secret masked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { chromiumMissing, context, ensureUiBuilt, launch, shot } from './browser.js';

describeWith('chromium', chromiumMissing, 'run actions in a browser: retry, enqueue, dequeue, queues, outputs', () => {
  const t = new TestServer();
  const dir = mkdtempSync(join(tmpdir(), 'svc-ui-actions-'));
  const marker = join(dir, 'ready');
  let browser: Browser;

  beforeAll(async () => {
    ensureUiBuilt();
    // `check` fails until the test creates the marker file.
    t.dag('flaky', `steps:\n  - name: prepare\n    command: echo prepared\n  - name: check\n    command: test -f ${marker}\n    depends: prepare\n`);
    // A named queue the configuration does not define runs one run at a time.
    t.dag('queued', 'queue: ui-queue\nsteps:\n  - name: nap\n    command: sleep 4\n');
    writeFileSync(join(dir, 'token'), 's3cr3t-value');
    t.dag('secretive', `secrets:\n  - name: API_TOKEN\n    provider: file\n    key: ${join(dir, 'token')}\nsteps:\n  - name: login\n    command: echo "token=$API_TOKEN"\n    output: LOGIN_LINE\n  - name: count\n    command: echo 42\n    output: ITEM_COUNT\n`);
    // Long enough to be seen running on the queues page on a loaded machine, short enough to end with the test.
    t.dag('own-queue', 'maxActiveRuns: 2\nsteps:\n  - name: nap\n    command: sleep 12\n');
    await t.start();
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function page(): Promise<Page> {
    const p = await (await context(browser)).newPage();
    p.on('pageerror', (e) => { throw e; });
    return p;
  }

  test('retry a failed run (a new attempt), then one step of it, then as a new run', async () => {
    rmSync(marker, { force: true });
    expect((await t.post('/dags/flaky/start', { dagRunId: 'flaky-1' })).status).toBe(200);
    await waitStatus(t, 'flaky', 'flaky-1', 'failed');
    const p = await page();
    await p.goto(`${t.url}/dag-runs/flaky/flaky-1`);
    await p.locator('.run-summary [data-status="failed"]').waitFor();
    writeFileSync(marker, '');

    await p.getByRole('button', { name: 'Retry', exact: true }).click();
    const dialog = p.getByRole('dialog', { name: 'Retry run flaky-1' });
    await p.screenshot({ path: shot('retry-dialog') });
    await dialog.getByRole('button', { name: 'Retry', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await p.locator('.run-summary [data-status="succeeded"]').waitFor({ timeout: 30_000 });
    await p.locator('.step-node[data-step="check"][data-status="succeeded"]').waitFor();

    // One step again, alone: it starts anew.
    const prepared = async () => ((await t.get('/dag-runs/flaky/flaky-1')).body.dagRun.nodes as Array<{ step: { name: string }; startedAt: string; statusLabel: string }>).find((n) => n.step.name === 'prepare');
    const before = (await prepared())?.startedAt;
    await p.locator('table.nodes tr[data-step="prepare"]').getByRole('button', { name: 'prepare' }).click();
    await p.getByRole('button', { name: 'Retry step' }).click();
    const stepDialog = p.getByRole('dialog', { name: 'Retry step prepare' });
    await stepDialog.getByRole('button', { name: 'Retry', exact: true }).click();
    await stepDialog.waitFor({ state: 'hidden' });
    await waitFor(async () => { const n = await prepared(); return n?.startedAt !== before && n?.statusLabel === 'succeeded'; });
    await p.locator('.run-summary [data-status="succeeded"]').waitFor({ timeout: 30_000 });

    // As a new run: its own page opens, the first run stays.
    await p.getByRole('button', { name: 'Retry', exact: true }).click();
    await dialog.getByLabel('a new run, this one kept as it is').check();
    await dialog.getByLabel('New run id').fill('flaky-2');
    await dialog.getByRole('button', { name: 'Retry', exact: true }).click();
    await p.getByRole('heading', { level: 1, name: 'Run flaky-2' }).waitFor();
    await p.locator('.run-summary [data-status="succeeded"]').waitFor({ timeout: 30_000 });
    expect((await t.get('/dag-runs/flaky/flaky-1')).body.dagRun.statusLabel).toBe('succeeded');
    await p.context().close();
  });

  test('enqueue from the DAG page; the second run waits in the queue and is dequeued', async () => {
    const p = await page();
    await p.goto(`${t.url}/dags/queued`);
    for (const id of ['q-1', 'q-2']) {
      await p.getByRole('button', { name: 'Enqueue', exact: true }).click();
      const dialog = p.getByRole('dialog', { name: 'Enqueue queued' });
      await dialog.getByLabel(/Run id/).fill(id);
      if (id === 'q-2') await p.screenshot({ path: shot('enqueue-dialog') });
      await dialog.getByRole('button', { name: 'Enqueue', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      await waitFor(async () => (await t.get(`/dag-runs/queued/${id}`)).status === 200);
    }
    await waitStatus(t, 'queued', 'q-1', 'running');
    expect((await t.get('/dag-runs/queued/q-2')).body.dagRun.statusLabel).toBe('queued');

    await p.goto(`${t.url}/dag-runs/queued/q-2`);
    await p.locator('.run-summary [data-status="queued"]').waitFor();
    await p.getByRole('button', { name: 'Dequeue' }).click();
    const dialog = p.getByRole('dialog', { name: 'Dequeue run q-2?' });
    await dialog.getByRole('button', { name: 'Dequeue' }).click();
    await p.locator('.run-summary [data-status="aborted"]').waitFor({ timeout: 30_000 });
    expect((await t.get('/dag-runs/queued/q-2')).body.dagRun.statusLabel).toBe('aborted');
    // The summary and the actions re-render apart: wait for the button to go rather than count it at once.
    await p.getByRole('button', { name: 'Dequeue' }).waitFor({ state: 'detached', timeout: 15_000 });
    await waitStatus(t, 'queued', 'q-1', 'succeeded');
    await p.context().close();
  });

  test('the queues page: running and queued runs per queue, in order, live; a queued run dequeued there', async () => {
    for (const id of ['q-3', 'q-4', 'q-5']) expect((await t.post('/dags/queued/enqueue', { dagRunId: id })).status).toBe(200);
    expect((await t.post('/dags/own-queue/start', { dagRunId: 'own-1' })).status).toBe(200);
    await waitStatus(t, 'queued', 'q-3', 'running');
    const p = await page();
    await p.goto(`${t.url}/`);
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queues' }).click();
    await p.getByRole('heading', { level: 1, name: 'Queues' }).waitFor();
    const named = p.locator('section[data-queue="ui-queue"]');
    await named.getByText('named queue').waitFor();
    const rows = () => named.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute('data-run')}:${tr.getAttribute('data-status')}:${tr.querySelector('td')?.textContent ?? ''}`));
    await named.locator('tr[data-run="q-5"]').waitFor();
    expect(await rows()).toEqual(['q-3:running:', 'q-4:queued:1', 'q-5:queued:2']);
    const own = p.locator('section[data-queue="own-queue"]');
    await own.getByText('DAG queue').waitFor();
    await own.getByText('2 at a time').waitFor();
    await own.locator('tr[data-run="own-1"][data-status="running"]').waitFor();
    await p.screenshot({ path: shot('queues'), fullPage: true });

    await named.locator('tr[data-run="q-5"]').getByRole('button', { name: 'Dequeue' }).click();
    await p.getByRole('dialog', { name: 'Dequeue run q-5?' }).getByRole('button', { name: 'Dequeue' }).click();
    await named.locator('tr[data-run="q-5"]').waitFor({ state: 'detached' });
    expect((await t.get('/dag-runs/queued/q-5')).body.dagRun.statusLabel).toBe('aborted');
    // q-3 ends, q-4 starts: the page follows without a reload.
    await named.locator('tr[data-run="q-4"][data-status="running"]').waitFor({ timeout: 30_000 });
    expect(await named.locator('tr[data-run="q-3"]').count()).toBe(0);
    await waitStatus(t, 'queued', 'q-4', 'succeeded');
    await p.getByText('No run is running or queued.').waitFor({ timeout: 30_000 });
    await p.context().close();
  });

  test('the outputs of a finished run, a secret masked as the server masks it', async () => {
    expect((await t.post('/dags/secretive/start', { dagRunId: 'secret-1' })).status).toBe(200);
    const p = await page();
    await p.goto(`${t.url}/dag-runs/secretive/secret-1`);
    const table = p.getByRole('table', { name: 'Outputs of the run' });
    await table.waitFor({ timeout: 30_000 });
    const value = (key: string) => table.locator(`tr[data-output="${key}"] pre`).textContent();
    expect(await value('itemCount')).toBe('42');
    expect(await value('loginLine')).toBe('token=*******');
    await table.locator('tr[data-output="loginLine"]').getByText('masked').waitFor();
    expect(await p.content()).not.toContain('s3cr3t-value');
    await p.screenshot({ path: shot('outputs'), fullPage: true });
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

async function waitStatus(t: TestServer, dag: string, id: string, label: string): Promise<void> {
  await waitFor(async () => (await t.get(`/dag-runs/${dag}/${id}`)).body.dagRun?.statusLabel === label);
}
