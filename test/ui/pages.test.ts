/**
 * The UI in a real browser (headless chromium) against the real server: the DAG list with the example
 * DAGs, a DAG's page, the Start dialog with a parameter, the graph and node table turning green without a
 * reload, a step's stdout; the run page; runConfig locking the dialog's fields. Each page's screenshot
 * goes to docs/ui/ (linked from docs/ui.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { chromiumMissing, context, ensureUiBuilt, launch, ROOT, shot } from './browser.js';

const EXAMPLES = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.yaml'));

/** Two steps, the first slow enough for the page to see it running. */
const SLOW_HELLO = `description: Waits a moment, then greets
tags: ui-test
params:
  - NAME: world
steps:
  - name: wait
    command: sleep 3
  - name: greet
    command: echo "hello \${NAME}"
    depends: wait
  - name: complain
    command: echo "mind the \${NAME}" >&2
    depends: wait
`;

const LOCKED = `description: Runs only with its defaults
runConfig:
  disableParamEdit: true
  disableRunIdEdit: true
params:
  - MODE: safe
steps:
  - name: only
    command: echo "$MODE"
`;

describeWith('chromium', chromiumMissing, 'the web UI in a browser', () => {
  const t = new TestServer();
  let browser: Browser;

  beforeAll(async () => {
    ensureUiBuilt();
    for (const f of EXAMPLES) t.dag(f.replace(/\.yaml$/, ''), readFileSync(join(ROOT, 'examples', f), 'utf8'));
    t.dag('slow-hello', SLOW_HELLO);
    t.dag('locked', LOCKED);
    t.dag('sleepy', 'steps:\n  - name: nap\n    command: sleep 8\n');
    await t.start();
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t.stop();
  });

  async function page(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const p = await (await context(browser, colorScheme)).newPage();
    p.on('pageerror', (e) => { throw e; });
    return p;
  }

  test('the DAG list shows the example DAGs, filtered by the server by name and tag expression', async () => {
    const p = await page();
    await p.goto(`${t.url}/`);
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'DAGs' }).click();
    await p.waitForURL(/\/dags$/);
    for (const f of EXAMPLES) await p.locator(`tr[data-dag="${f.replace(/\.yaml$/, '')}"]`).waitFor();
    await p.screenshot({ path: shot('dags'), fullPage: true });

    const asked: URL[] = [];
    p.on('request', (r) => { const u = new URL(r.url()); if (u.pathname === '/api/v2/dags') asked.push(u); });
    await p.getByRole('searchbox', { name: 'Tags' }).fill('team=platform');
    await expectRows(p, ['graph']);
    await p.getByRole('searchbox', { name: 'Tags' }).fill('team=*,!tier');
    await expectRows(p, []);
    await p.getByRole('searchbox', { name: 'Tags' }).fill('');
    await p.getByRole('searchbox', { name: 'Name' }).fill('HEL');
    await expectRows(p, ['hello', 'slow-hello']);
    await p.getByRole('searchbox', { name: 'Name' }).fill('');
    await p.locator('tr[data-dag="hello"] button.tag', { hasText: 'getting-started' }).click();
    await expectRows(p, ['hello']);
    expect(new URL(p.url()).searchParams.get('tags')).toBe('getting-started');
    // The server filtered: the expression went to GET /dags as written, never evaluated in the browser.
    expect(asked.map((u) => u.searchParams.get('tags'))).toEqual(expect.arrayContaining(['team=platform', 'team=*,!tier', 'getting-started']));
    await p.reload();
    await expectRows(p, ['hello']);
    await p.getByRole('searchbox', { name: 'Tags' }).fill('a==b');
    await p.getByRole('alert').filter({ hasText: /a==b|tag/i }).waitFor();
    await p.getByRole('searchbox', { name: 'Tags' }).fill('');
    await p.getByRole('navigation', { name: 'DAG pages' }).getByText(`${EXAMPLES.length + 3} DAGs`, { exact: true }).waitFor();

    // Next run: the server's nextRun, written in the row; none for a DAG without a schedule.
    const api = (await t.get('/dags?name=scheduled')).body.dags[0];
    expect(await p.locator('tr[data-dag="scheduled"] td.next-run time').getAttribute('datetime')).toBe(api.nextRun);
    expect(await p.locator('tr[data-dag="hello"] td.next-run').textContent()).toBe('–');

    const schedule = p.getByRole('switch', { name: 'Schedule of hello' });
    expect(await schedule.getAttribute('aria-checked')).toBe('true');
    await schedule.click();
    await p.locator('tr[data-dag="hello"] [role="switch"][aria-checked="false"]:not([disabled])').waitFor();
    expect((await t.get('/dags/hello')).body.suspended).toBe(true);
    await schedule.click();
    await p.locator('tr[data-dag="hello"] [role="switch"][aria-checked="true"]:not([disabled])').waitFor();
    expect((await t.get('/dags/hello')).body.suspended).toBe(false);
    await p.context().close();
  });

  test('search in the DAG files shows each matching DAG with its matching lines, from GET /dags/search', async () => {
    const p = await page();
    await p.goto(`${t.url}/dags`);
    await p.getByLabel('Search in files').fill('unit-tests');
    await p.getByLabel('Search in files').press('Enter');
    const results = p.getByRole('region', { name: 'Search results' });
    await results.locator('li[data-result="graph"]').waitFor();
    const api = (await t.get('/dags/search?q=unit-tests')).body.results as Array<{ name: string; matches: Array<{ lineNumber: number }> }>;
    expect(await results.locator('li[data-result]').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-result')))).toEqual(api.map((r) => r.name));
    const graph = results.locator('li[data-result="graph"]');
    const first = api.find((r) => r.name === 'graph')!.matches[0]!;
    expect(await graph.locator('mark').first().textContent()).toMatch(new RegExp(`^\\s*${first.lineNumber}  .*unit-tests`));
    expect(new URL(p.url()).searchParams.get('search')).toBe('unit-tests');
    await graph.getByRole('link').click();
    await p.waitForURL(/\/dags\/graph\?tab=spec$/);
    await p.goBack();
    await results.getByText('1 DAG holds').or(results.getByText(/DAGs hold/)).waitFor();
    await p.getByRole('button', { name: 'Clear search' }).click();
    await p.locator('tr[data-dag="hello"]').waitFor();
    await p.context().close();
  });

  test('start a DAG with a parameter, watch it succeed live, read a step\'s stdout and stderr', async () => {
    const p = await page();
    // Live updates come from the server's event streams (with polling only as a safety net).
    const streams: string[] = [];
    p.on('request', (r) => { const u = new URL(r.url()); if (u.pathname.startsWith('/api/v2/events/')) streams.push(`${u.pathname}${u.search}`); });
    await p.goto(`${t.url}/dags`);
    await p.getByRole('link', { name: 'slow-hello' }).click();
    await p.getByRole('heading', { level: 1, name: 'slow-hello' }).waitFor();
    await p.locator('.step-node[data-step="greet"]').waitFor();
    await p.screenshot({ path: shot('dag'), fullPage: true });
    // Set by the test: still there at the end only if the page never reloaded.
    await p.evaluate(() => { (window as unknown as { noReload: boolean }).noReload = true; });

    await p.getByRole('button', { name: 'Start', exact: true }).click();
    const dialog = p.getByRole('dialog', { name: 'Start slow-hello' });
    const params = dialog.getByLabel('Parameters');
    expect(await params.inputValue()).toBe('NAME=world');
    await params.fill('NAME=playwright');
    await dialog.getByLabel(/Run id/).fill('ui-run-1');
    await p.screenshot({ path: shot('start-dialog') });
    await dialog.getByRole('button', { name: 'Start', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    await p.locator('.run-summary[data-run="ui-run-1"]').waitFor();
    await p.locator('.step-node[data-step="wait"][data-status="running"]').waitFor();
    await p.locator('table.nodes tr[data-step="wait"] [data-status="running"]').waitFor();
    await p.locator('.step-node[data-step="greet"][data-status="succeeded"]').waitFor({ timeout: 30_000 });
    await p.locator('table.nodes tr[data-step="greet"] [data-status="succeeded"]').waitFor();
    await p.locator('.run-summary [data-status="succeeded"]').waitFor();
    expect(await p.evaluate(() => (window as unknown as { noReload?: boolean }).noReload)).toBe(true);

    await p.locator('table.nodes tr[data-step="greet"]').getByRole('button', { name: 'greet' }).click();
    await expectLog(p, 'stdout', 'hello playwright');
    await p.screenshot({ path: shot('dag-run'), fullPage: true });
    await p.locator('.step-node[data-step="complain"]').click();
    await p.getByRole('button', { name: 'stderr' }).click();
    await expectLog(p, 'stderr', 'mind the playwright');
    expect(streams).toContain('/api/v2/events/dag-runs?limit=1&name=slow-hello');
    await p.context().close();
  });

  test('the run page: header, graph, steps and logs; light and dark', async () => {
    const started = await t.post('/dags/hello/start', { params: 'NAME=reader', dagRunId: 'ui-run-2' });
    expect(started.status).toBe(200);
    for (const scheme of ['light', 'dark'] as const) {
      const p = await page(scheme);
      await p.goto(`${t.url}/dag-runs/hello/ui-run-2`);
      await p.locator('.run-summary [data-status="succeeded"]').waitFor({ timeout: 30_000 });
      await p.getByRole('heading', { level: 1, name: /ui-run-2/ }).waitFor();
      // A graph node is a button: the keyboard opens its logs as a click does.
      await p.locator('.step-node[data-step="shout"]').focus();
      await p.keyboard.press('Enter');
      await expectLog(p, 'stdout', 'HELLO READER');
      expect(p.url()).toMatch(/\?step=shout$/);
      await p.screenshot({ path: shot(scheme === 'light' ? 'run' : 'run-dark'), fullPage: true });
      await p.context().close();
    }
  });

  test('the run page\'s timeline: a bar per step from its start to its finish, growing live, labelled', async () => {
    expect((await t.post('/dags/slow-hello/start', { dagRunId: 'timeline-1' })).status).toBe(200);
    const p = await page();
    await p.goto(`${t.url}/dag-runs/slow-hello/timeline-1`);
    const rows = p.getByRole('list', { name: 'Steps over time' });
    const waitBar = rows.locator('li[data-step="wait"]').getByRole('img');
    // While `wait` runs its bar is open (it grows with the clock), and the steps after it have none yet.
    await rows.locator('li[data-step="wait"][data-status="running"] .timeline-bar.open').waitFor({ timeout: 30_000 });
    expect(await waitBar.getAttribute('aria-label')).toMatch(/^wait: running, started at \+\d+ms, running for /);
    await rows.locator('li[data-step="greet"]').getByText('not started').waitFor();
    await p.locator('.run-summary [data-status="succeeded"]').waitFor({ timeout: 30_000 });
    await rows.locator('li[data-step="greet"][data-status="succeeded"] .timeline-bar:not(.open)').waitFor();
    expect(await waitBar.getAttribute('aria-label')).toMatch(/^wait: succeeded, started at \+\d+ms, took [2-9]s/);
    expect(await rows.locator('li[data-step="greet"]').getByRole('img').getAttribute('aria-label')).toMatch(/^greet: succeeded, started at \+[2-9]s/);
    // `greet` depends on `wait`: its bar starts where wait's ends (give or take the least width a bar keeps
    // at the end of the span, 0.5%), and wait's fills most of the span.
    const w = (await waitBar.boundingBox())!;
    const g = (await rows.locator('li[data-step="greet"]').getByRole('img').boundingBox())!;
    const track = (await rows.locator('li[data-step="wait"] .timeline-track').boundingBox())!;
    expect(g.x).toBeGreaterThanOrEqual(w.x + w.width - track.width * 0.005 - 4);
    expect(w.width).toBeGreaterThan(track.width / 2);
    await p.getByRole('region', { name: 'Timeline' }).screenshot({ path: shot('timeline') });
    // A step's name in the timeline opens its logs, as in the graph and the table.
    await rows.locator('li[data-step="complain"]').getByRole('button', { name: 'complain' }).click();
    await p.getByRole('button', { name: 'stderr' }).click();
    await expectLog(p, 'stderr', 'mind the world');
    expect(p.url()).toMatch(/\?step=complain$/);
    await p.context().close();
  });

  test('Stop on the run page stops a running run', async () => {
    expect((await t.post('/dags/slow-hello/start', { dagRunId: 'ui-run-stop' })).status).toBe(200);
    const p = await page();
    await p.goto(`${t.url}/dag-runs/slow-hello/ui-run-stop`);
    await p.locator('.step-node[data-step="wait"][data-status="running"]').waitFor();
    await p.getByRole('button', { name: 'Stop' }).click();
    await p.locator('.run-summary [data-status="aborted"]').waitFor({ timeout: 30_000 });
    await p.locator('table.nodes tr[data-step="greet"] [data-status="not_started"], table.nodes tr[data-step="greet"] [data-status="aborted"]').waitFor();
    expect(await p.getByRole('button', { name: 'Stop' }).isDisabled()).toBe(true);
    await p.context().close();
  });

  test('runConfig locks the Start dialog\'s parameters and hides its run id', async () => {
    const p = await page('dark');
    await p.goto(`${t.url}/dags/locked`);
    await p.getByRole('button', { name: 'Start', exact: true }).click();
    const dialog = p.getByRole('dialog', { name: 'Start locked' });
    const params = dialog.getByLabel('Parameters');
    expect(await params.inputValue()).toBe('MODE=safe');
    expect(await params.getAttribute('readonly')).not.toBeNull();
    expect(await dialog.getByLabel(/Run id/).count()).toBe(0);
    await p.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await p.screenshot({ path: shot('dag-dark'), fullPage: true });
    await p.context().close();
  });

  test('a missing DAG and an unknown page say so', async () => {
    const p = await page();
    await p.goto(`${t.url}/dags/no-such-dag`);
    await p.getByRole('alert').filter({ hasText: 'not found' }).waitFor();
    await p.goto(`${t.url}/nowhere`);
    await p.getByRole('heading', { name: 'Not found' }).waitFor();
    await p.context().close();
  });

  test('the DAG page\'s history grid: one row per step, one column per run, newest first', async () => {
    t.dag('grid', 'steps:\n  - name: first\n    command: "true"\n  - name: second\n    command: exit ${CODE}\nparams:\n  - CODE: "0"\n');
    for (const [id, code] of [['grid-1', '0'], ['grid-2', '3']] as const) {
      expect((await t.post('/dags/grid/start', { dagRunId: id, params: `CODE=${code}` })).status).toBe(200);
      await waitRun(t, 'grid', id);
    }
    const p = await page();
    await p.goto(`${t.url}/dags/grid`);
    const grid = p.getByRole('table', { name: 'Step statuses of recent runs' });
    await grid.waitFor();
    const cells = (step: string) => grid.locator(`tr[data-step="${step}"] .cell`).evaluateAll((c) => c.map((x) => x.getAttribute('data-status')));
    expect(await cells('first')).toEqual(['succeeded', 'succeeded']);
    expect(await cells('second')).toEqual(['failed', 'succeeded']);
    await p.screenshot({ path: shot('history'), fullPage: true });
    await grid.getByRole('link', { name: 'run grid-2' }).click();
    await p.getByRole('heading', { level: 1, name: 'Run grid-2' }).waitFor();
    await p.context().close();
  });

  test('an approval step: its prompt and inputs on the run page; approve continues the run, reject ends it', async () => {
    t.dag('gated', 'steps:\n  - name: gate\n    type: hitl\n    config: { prompt: "Ship it?", input: [WHO], required: [WHO] }\n  - name: after\n    command: echo "approved by $WHO"\n');
    for (const id of ['gate-yes', 'gate-no']) expect((await t.post('/dags/gated/start', { dagRunId: id })).status).toBe(200);
    const p = await page();
    await p.goto(`${t.url}/dag-runs/gated/gate-yes`);
    const panel = p.getByRole('region', { name: 'Approval needed: gate' });
    await panel.waitFor();
    await panel.getByText('Ship it?').waitFor();
    await p.locator('.step-node[data-step="gate"][data-status="waiting"]').waitFor();
    await p.screenshot({ path: shot('approval'), fullPage: true });
    await panel.getByLabel('WHO (required)').fill('ada');
    await panel.getByRole('button', { name: 'Approve' }).click();
    await p.locator('.run-summary [data-status="succeeded"]').waitFor({ timeout: 30_000 });
    await panel.waitFor({ state: 'detached' });
    await p.locator('table.nodes tr[data-step="after"]').getByRole('button', { name: 'after' }).click();
    await expectLog(p, 'stdout', 'approved by ada');
    await p.goto(`${t.url}/dag-runs/gated/gate-no`);
    await panel.getByLabel('Reason (optional)').fill('not today');
    await panel.getByRole('button', { name: 'Reject' }).click();
    await p.locator('.run-summary [data-status="rejected"]').waitFor({ timeout: 30_000 });
    await p.context().close();
  });

  test('the dashboard: today\'s runs by status and over time, active runs, workers, resources', async () => {
    expect((await t.post('/dags/hello/start', { dagRunId: 'dash-1' })).status).toBe(200);
    await waitRun(t, 'hello', 'dash-1');
    expect((await t.post('/dags/slow-hello/start', { dagRunId: 'dash-2' })).status).toBe(200);
    const p = await page();
    // The dashboard reads a page of runs (the API's limit), never every run of the day.
    const lists: URL[] = [];
    p.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/v2/dag-runs') lists.push(u);
    });
    await p.goto(`${t.url}/`);
    await p.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    const counts = p.getByRole('list', { name: 'Runs today by status' });
    await counts.locator('[data-status="succeeded"]').waitFor();
    await p.getByRole('table', { name: 'Active runs' }).locator('tr[data-run="dash-2"]').waitFor();
    await p.getByRole('table', { name: 'Workers' }).waitFor();
    await p.locator('figure.sparkline[data-chart="CPU"]').waitFor();
    // The day's timeline: a row per DAG, a bar per run, the running one open (striped) until it ends.
    const day = p.getByRole('list', { name: "Today's runs over time" });
    const done = day.locator('li[data-dag="hello"] a[data-run="dash-1"]');
    await done.and(p.locator('[data-status="succeeded"]')).waitFor();
    expect(await done.getAttribute('aria-label')).toMatch(/^hello dash-1: succeeded, started .+, took \d/);
    const running = day.locator('li[data-dag="slow-hello"] a[data-run="dash-2"]');
    await running.and(p.locator('.open[data-status="running"]')).waitFor();
    expect(await running.getAttribute('aria-label')).toContain('running for');
    await p.screenshot({ path: shot('dashboard'), fullPage: true });
    // The active run leaves the list live when it ends; its bar closes.
    await p.getByRole('table', { name: 'Active runs' }).locator('tr[data-run="dash-2"]').waitFor({ state: 'detached', timeout: 30_000 });
    await running.and(p.locator('[data-status="succeeded"]:not(.open)')).waitFor();
    expect(lists.length).toBeGreaterThan(0);
    for (const u of lists) expect(Number(u.searchParams.get('limit'))).toBeGreaterThan(0);
    expect(lists.some((u) => u.searchParams.has('fromDate'))).toBe(true);
    // A bar opens its run.
    await done.click();
    await p.getByRole('heading', { level: 1, name: 'Run dash-1' }).waitFor();
    await p.goBack();
    await counts.locator('[data-status="succeeded"]').click();
    await p.waitForURL(/\/dag-runs\?status=4&from=/);
    await p.locator('tr[data-run="dash-1"]').waitFor();
    await p.context().close();
  });

  test('the workers page: the server\'s health, the local worker, a running run as its task, live', async () => {
    const p = await page();
    await p.goto(`${t.url}/`);
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workers' }).click();
    await p.getByRole('heading', { level: 1, name: 'Workers' }).waitFor();
    await p.locator('dl[data-health="healthy"]').waitFor();
    const local = p.getByRole('table', { name: 'Workers' }).locator('tr[data-worker="local"]');
    await local.waitFor();
    await local.getByText('healthy', { exact: true }).waitFor();
    expect(await local.getAttribute('data-health')).toBe('healthy');
    expect((await t.post('/dags/sleepy/start', { dagRunId: 'worker-task-1' })).status).toBe(200);
    const task = local.locator('li[data-task="worker-task-1"]');
    await task.waitFor({ timeout: 30_000 });
    expect(await task.getByRole('link').getAttribute('href')).toBe('/dag-runs/sleepy/worker-task-1');
    await p.screenshot({ path: shot('workers'), fullPage: true });
    // The task leaves the list when its run ends, without a reload.
    await task.waitFor({ state: 'detached', timeout: 30_000 });
    await p.context().close();
  });

  test('with authentication off: the admin links are there; users and API keys say they need builtin mode', async () => {
    const p = await page();
    await p.goto(`${t.url}/`);
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    await p.getByRole('alert').filter({ hasText: 'Users exist only with builtin authentication' }).waitFor();
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await p.getByRole('alert').filter({ hasText: 'API keys exist only with builtin authentication' }).waitFor();
    // Webhooks need no users: their page and the DAG page's tab work.
    await p.goto(`${t.url}/dags/hello?tab=webhook`);
    await p.getByRole('region', { name: 'Webhook of hello' }).getByRole('button', { name: 'Create webhook' }).waitFor();
    await p.context().close();
  });

  test('the runs list: newest first, filters in the address (status, DAG, run id), a run opens its page', async () => {
    for (const id of ['list-ok-1', 'list-ok-2']) {
      expect((await t.post('/dags/hello/start', { dagRunId: id })).status).toBe(200);
      await waitRun(t, 'hello', id);
    }
    // The locked DAG refuses a chosen run id (runConfig.disableRunIdEdit): it gets one of the server's.
    const started = await t.post('/dags/locked/start', {});
    expect(started.status).toBe(200);
    const locked = (started.body as { dagRunId: string }).dagRunId;
    await waitRun(t, 'locked', locked);
    const p = await page();
    await p.goto(`${t.url}/dags`);
    await p.getByRole('link', { name: 'Runs' }).click();
    await p.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    await p.locator(`tr[data-run="${locked}"]`).waitFor();
    const order = await p.locator('table.runs tr[data-run]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')));
    expect(order.indexOf(locked)).toBeLessThan(order.indexOf('list-ok-2'));
    expect(order.indexOf('list-ok-2')).toBeLessThan(order.indexOf('list-ok-1'));
    await p.screenshot({ path: shot('runs'), fullPage: true });
    await p.getByLabel('DAG').fill('hello');
    await p.getByLabel('Run id').fill('list-ok');
    await p.getByLabel('Status').selectOption({ label: 'succeeded' });
    await p.locator(`tr[data-run="${locked}"]`).waitFor({ state: 'detached' });
    await p.waitForFunction(() => document.querySelectorAll('table.runs tr[data-run]').length === 2);
    expect(await p.locator('table.runs tr[data-run]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')))).toEqual(['list-ok-2', 'list-ok-1']);
    expect(new URL(p.url()).search).toBe('?name=hello&id=list-ok&status=4');
    await p.getByLabel('Status').selectOption({ label: 'failed' });
    await p.getByText('0 runs').waitFor();
    await p.goto(`${t.url}/dag-runs?name=hello&id=list-ok-1`);
    await p.getByRole('link', { name: 'list-ok-1' }).click();
    await p.getByRole('heading', { level: 1, name: 'Run list-ok-1' }).waitFor();
    await p.context().close();
  });
});

/** Until the run has finished (succeeded, failed, aborted...). */
async function waitRun(t: TestServer, dag: string, id: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const r = await t.get(`/dag-runs/${dag}/${id}`);
    if ([2, 3, 4, 6, 8].includes(r.body.dagRun?.status)) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`${dag}/${id} did not finish`);
}

async function expectRows(p: Page, names: string[]): Promise<void> {
  await p.waitForFunction((n) => {
    const rows = [...document.querySelectorAll('tr[data-dag]')].map((r) => r.getAttribute('data-dag'));
    return JSON.stringify(rows) === JSON.stringify(n);
  }, names);
}

async function expectLog(p: Page, stream: 'stdout' | 'stderr', text: string): Promise<void> {
  await p.locator(`pre.log[data-stream="${stream}"]`, { hasText: text }).waitFor();
}
