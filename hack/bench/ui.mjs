#!/usr/bin/env node
// The web UI's first render (issue 22): `svc server` with N DAG files (default 1,000) and M finished runs
// (default 10,000, written straight into its data dir: seed-runs.mjs), Debian's chromium (headless,
// playwright-core). Reported: the size of dist/ui (gzip); /dags opened cold and warm: time to the first
// DAG row and to the DAG count, the rows in the DOM (virtual rows: a screenful, not 1,000), the bytes the
// page loaded as sent; /dag-runs: time to the first run row, the rows in the DOM, and the time to scroll
// to the oldest run (every page of 200 read as the end comes into view) with the rows then in the DOM.
// `npm run build`, then `node_modules/.bin/node hack/bench/ui.mjs [--dags 1000] [--runs 10000] [--repeats 3]`.
// Figures, not assertions: hack/bench/README.md.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { sizes } from '../ui.mjs';
import { must, startSystem, stopSystem } from './api-servers.mjs';
import { generate, indexBuilt } from './seed-runs.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: {
  dags: { type: 'string', default: '1000' }, runs: { type: 'string', default: '10000' }, repeats: { type: 'string', default: '3' },
  chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
} });
const nDags = Number(values.dags);
const nRuns = Number(values.runs);
const repeats = Number(values.repeats);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;

function bundle() {
  const rows = sizes();
  const gz = (re) => rows.filter(([f]) => re.test(f)).reduce((s, r) => s + r[2], 0);
  console.log(`dist/ui: ${kib(rows.reduce((s, r) => s + r[1], 0))}, ${kib(rows.reduce((s, r) => s + r[2], 0))} gzip; `
    + `first page (index js + css) ${kib(gz(/^index-/))} gzip; ${rows.map(([f, , g]) => `${f.replace(/-[\w-]{8}\./, '.')} ${kib(g)}`).join(', ')}`);
}

function seed(dir) {
  const dagsDir = join(dir, 'dags');
  mkdirSync(dagsDir);
  for (let i = 0; i < nDags; i++) {
    const name = `dag-${String(i).padStart(4, '0')}`;
    writeFileSync(join(dagsDir, `${name}.yaml`), `description: DAG number ${i}\ntags: [team=t${i % 7}, bench]\nschedule: "${i % 60} * * * *"\nsteps:\n  - name: a\n    command: "true"\n  - name: b\n    command: "true"\n`);
  }
  return dagsDir;
}

/** Opens `path` in `page`: ms to the first `row`, ms until `ready` holds, and the rows then in the DOM. */
async function open(page, url, row, ready) {
  const t = performance.now();
  await page.goto(url);
  await page.locator(row).first().waitFor({ timeout: 120_000 });
  const first = performance.now() - t;
  await page.waitForFunction(ready, undefined, { timeout: 120_000 });
  return { first, ready: performance.now() - t, dom: await page.locator(row).count() };
}

/** Scrolls /dag-runs to its end until the oldest run is in the DOM: each page is read as the end comes in view. */
async function scrollRuns(page) {
  const t = performance.now();
  for (let i = 0; await page.locator('tr[data-run="r0000000"]').count() === 0; i++) {
    if (i > 20_000) throw new Error('the oldest run was not reached by scrolling');
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForTimeout(10);
  }
  return { ms: performance.now() - t, dom: await page.locator('tr[data-run]').count() };
}

async function measure(sys) {
  const root = sys.base.replace('/api/v2', '');
  const browser = await chromium.launch({ executablePath: values.chromium, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const out = { cold: [], warm: [], runs: [], scroll: [], bytes: 0 };
  try {
    const dagsReady = (n) => `document.querySelector('.pager')?.textContent?.includes('${n} DAGs')`;
    for (let i = 0; i < repeats; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      let loaded = 0;
      page.on('response', async (r) => { loaded += Number((await r.allHeaders())['content-length'] ?? 0); });
      console.error(`round ${i + 1}: /dags`);
      out.cold.push(await open(page, `${root}/dags`, 'tr[data-dag]', dagsReady(nDags)));
      out.warm.push(await open(page, `${root}/dags`, 'tr[data-dag]', dagsReady(nDags)));
      out.bytes = Math.max(out.bytes, loaded);
      console.error(`round ${i + 1}: /dag-runs`);
      out.runs.push(await open(page, `${root}/dag-runs`, 'tr[data-run]', "document.querySelector('[aria-live]')?.textContent?.startsWith('the newest')"));
      console.error(`round ${i + 1}: scrolling the runs`);
      out.scroll.push(await scrollRuns(page));
      await ctx.close();
    }
  } finally {
    await browser.close();
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ui-'));
try {
  bundle();
  const dagsDir = seed(dir);
  const genMs = await generate(ROOT, join(dir, 'svc-data'), nRuns, nDags);
  const sys = await startSystem('svc', dir, dagsDir);
  try {
    // A data dir written behind the server's back has no run index yet: lists scan the run files until the
    // server has built it (ADR 0016), which is the upgrade case, not the steady state measured here.
    const indexMs = await indexBuilt(sys.base, join(dir, 'svc-data'));
    console.error(`run index built in ${indexMs} ms`);
    const api = [];
    for (let i = 0; i < repeats; i++) {
      const t = performance.now();
      await must('GET', `${sys.base}/dags?perPage=1000`);
      api.push(performance.now() - t);
    }
    const o = await measure(sys);
    const fmt = (xs, k) => `${median(xs.map((x) => x[k])).toFixed(0)} ms`;
    console.log(`DAGs: ${nDags}; runs: ${nRuns} (written in ${genMs} ms); GET /dags?perPage=1000 median ${median(api).toFixed(0)} ms`);
    console.log(`/dags cold: first row ${fmt(o.cold, 'first')}, count shown ${fmt(o.cold, 'ready')}, ${median(o.cold.map((x) => x.dom))} rows in the DOM; loaded ${kib(o.bytes)} (as sent)`);
    console.log(`/dags warm (same tab again): first row ${fmt(o.warm, 'first')}, count shown ${fmt(o.warm, 'ready')}`);
    console.log(`/dag-runs: first row ${fmt(o.runs, 'first')}, first page shown ${fmt(o.runs, 'ready')}, ${median(o.runs.map((x) => x.dom))} rows in the DOM; scrolled to the oldest run in ${median(o.scroll.map((x) => x.ms)).toFixed(0)} ms (${median(o.scroll.map((x) => x.dom))} rows in the DOM then)`);
  } finally {
    await stopSystem(sys);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
