#!/usr/bin/env node
// The web UI's first render (issue 22): `svc server` with N DAG files (default 1,000) and M finished runs
// spread over them, Debian's chromium (headless, playwright-core) opening /dags cold and warm; reported:
// time to the first DAG row, to every row, and the bytes the page loaded (gzip as served). And the size
// of dist/ui. `npm run build`, then `node_modules/.bin/node hack/bench/ui.mjs [--dags 1000] [--runs 3]`.
// Figures, not assertions: hack/bench/README.md.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { must, startSystem, stopSystem } from './api-servers.mjs';

const { values } = parseArgs({ options: { dags: { type: 'string', default: '1000' }, runs: { type: 'string', default: '3' }, chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' } } });
const nDags = Number(values.dags);
const repeats = Number(values.runs);

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ui-'));
const dagsDir = join(dir, 'dags');
mkdirSync(dagsDir);
for (let i = 0; i < nDags; i++) {
  const name = `dag-${String(i).padStart(4, '0')}`;
  writeFileSync(join(dagsDir, `${name}.yaml`), `description: DAG number ${i}\ntags: [team=t${i % 7}, bench]\nschedule: "${i % 60} * * * *"\nsteps:\n  - name: a\n    command: "true"\n  - name: b\n    command: "true"\n`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const sys = await startSystem('svc', dir, dagsDir);
const browser = await chromium.launch({ executablePath: values.chromium, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
try {
  // Some DAGs with a latest run, so the list shows statuses too.
  for (let i = 0; i < Math.min(50, nDags); i++) await must('POST', `${sys.base}/dags/dag-${String(i).padStart(4, '0')}/start`, {});
  await new Promise((r) => setTimeout(r, 3000));
  const api = [];
  for (let i = 0; i < repeats; i++) {
    const t = performance.now();
    await must('GET', `${sys.base}/dags?perPage=1000`);
    api.push(performance.now() - t);
  }
  const cold = [];
  const warm = [];
  let bytes = 0;
  for (let i = 0; i < repeats; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    let loaded = 0;
    page.on('response', async (r) => { const len = Number((await r.allHeaders())['content-length'] ?? 0); loaded += len; });
    for (const into of [cold, warm]) {
      const t = performance.now();
      await page.goto(`${sys.base.replace('/api/v2', '')}/dags`);
      await page.locator('tr[data-dag]').first().waitFor({ timeout: 60_000 });
      const first = performance.now() - t;
      await page.waitForFunction((n) => document.querySelectorAll('tr[data-dag]').length === n, Math.min(nDags, 1000), { timeout: 60_000 });
      into.push({ first, all: performance.now() - t });
    }
    bytes = Math.max(bytes, loaded);
    await ctx.close();
  }
  const fmt = (xs, k) => `${median(xs.map((x) => x[k])).toFixed(0)} ms`;
  console.log(`DAGs: ${nDags}; GET /dags?perPage=1000 median ${median(api).toFixed(0)} ms`);
  console.log(`cold load: first row ${fmt(cold, 'first')}, all rows ${fmt(cold, 'all')}; loaded ${(bytes / 1024).toFixed(0)} KiB (as sent)`);
  console.log(`warm (same page again): first row ${fmt(warm, 'first')}, all rows ${fmt(warm, 'all')}`);
} finally {
  await browser.close();
  await stopSystem(sys);
  rmSync(dir, { recursive: true, force: true });
}
