#!/usr/bin/env node
// Run list benchmark (issue 20, item 13): GET /dag-runs over a large history on the embedded backend,
// with the run index (ADR 0016) and, with --svc-alt, another build (the one before it) on the same data.
//
//   node hack/bench/runs.mjs [--runs 100000,3000] [--dags 1000] [--requests 50] [--load-seconds 10]
//                            [--svc DIR] [--svc-alt DIR] [--alt-requests 3] [--writes 300] [--out f.json] [--keep]
//
// --svc / --svc-alt: a checkout with dist/ built by tsc (default --svc: this repository). For each size
// it generates the runs straight into a temp data dir (the store's file format, finished runs spread
// over --dags DAGs, 5 % sub-DAG runs, 2 % failed), starts `svc server` (queue processor off, so
// that only the timed requests read runs), times the index build (upgrade from a data dir
// without one), then --requests sequential requests per scenario, then --load-seconds of 8 concurrent
// clients. The alt build gets --alt-requests per scenario (it reads every run for each request).
// --writes times LocalRunStore create + 3 status writes per run on a fresh store (the index's cost).
// Figures, not assertions: see hack/bench/README.md. Plain ESM.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, http, sleep } from './api-servers.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
import { generate, indexBuilt, T0 } from './seed-runs.mjs';

function parseArgs(argv) {
  const o = { runs: [100_000, 3000], dags: 1000, requests: 50, loadSeconds: 10, svc: ROOT, alt: undefined, altRequests: 3, writes: 300, out: undefined, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split('=');
    const val = () => inline ?? argv[++i];
    if (name === '--runs') o.runs = val().split(',').map(Number);
    else if (['--dags', '--requests', '--alt-requests', '--writes'].includes(name)) o[name.slice(2).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = Number(val());
    else if (name === '--load-seconds') o.loadSeconds = Number(val());
    else if (name === '--svc') o.svc = resolve(val());
    else if (name === '--svc-alt') o.alt = resolve(val());
    else if (name === '--out') o.out = resolve(val());
    else if (name === '--keep') o.keep = true;
    else { console.error(`runs bench: unknown argument ${argv[i]}`); process.exit(2); }
  }
  return o;
}

const pct = (xs, p) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] * 10) / 10;
};

// ------------------------------------------------------------------------------------------- the data
/** Runs written as LocalRunStore writes them (spec.json, status.json), without going through it. */
// --------------------------------------------------------------------------------------------- server
async function startServer(root, dataDir, dagsDir) {
  const port = await freePort();
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh', SVC_DATA_DIR: dataDir, SVC_DAGS_DIR: dagsDir, SVC_HOST: '127.0.0.1', SVC_PORT: String(port), SVC_LOG_LEVEL: 'warn', SVC_QUEUE_ENABLED: 'false' };
  const child = spawn(process.execPath, [join(root, 'bin/svc.js'), 'server'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const base = `http://127.0.0.1:${port}/api/v2`;
  const t = performance.now();
  for (const end = Date.now() + 900_000; Date.now() < end;) {
    if (child.exitCode !== null) throw new Error(`svc exited with ${child.exitCode}: ${stderr}`);
    if ((await http('GET', `${base}/health`).catch(() => undefined))?.status === 200) return { child, base, startMs: Math.round(performance.now() - t) };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`svc did not answer /health: ${stderr}`);
}

async function stopServer(s) {
  s.child.kill('SIGTERM');
  for (let i = 0; i < 100 && s.child.exitCode === null; i++) await sleep(50);
  if (s.child.exitCode === null) s.child.kill('SIGKILL');
}

// ------------------------------------------------------------------------------------------ scenarios
function scenarios(n) {
  const mid = Math.floor(T0 / 1000 + n / 2);
  return [
    ['newest 100 (limit=100)', 'limit=100'],
    ['page 11 (cursor after 1,000 runs)', 'limit=100', 10],
    ['name, limit=100', 'name=dag-0007&limit=100'],
    ['status=2 (2 %), limit=100', 'status=2&limit=100'],
    ['tags team=t3, limit=100', 'tags=team=t3&limit=100'],
    ['dagRunId substring (1 match)', `dagRunId=${String(Math.floor(n / 3)).padStart(7, '0')}&limit=100`],
    ['1 h date window, limit=100', `fromDate=${mid}&toDate=${mid + 3600}&limit=100`],
    ['tag no run has (scan)', 'tags=nosuch&limit=100'],
    ['no limit: every run', ''],
  ];
}

async function timed(base, query, pages, count) {
  let q = query;
  for (let p = 0; p < (pages ?? 0); p++) {
    const r = await http('GET', `${base}/dag-runs?${q}`);
    q = `${query}&cursor=${encodeURIComponent(r.body.nextCursor)}`;
  }
  const samples = [];
  let listed = 0;
  for (let i = 0; i < count + 2; i++) {
    const t = performance.now();
    const r = await http('GET', `${base}/dag-runs?${q}`);
    if (r.status !== 200) throw new Error(`GET /dag-runs?${q} answered ${r.status}: ${r.text.slice(0, 200)}`);
    if (i >= 2) samples.push(performance.now() - t); // two warm-ups
    listed = r.body.dagRuns.length;
  }
  return { listed, p50: pct(samples, 50), p95: pct(samples, 95), p99: pct(samples, 99), samples: samples.map((s) => Math.round(s * 10) / 10) };
}

/** 8 clients for `seconds`, each looping over the limited scenarios. */
async function load(base, list, seconds) {
  const samples = [];
  const end = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: 8 }, async (_, c) => {
    for (let i = c; Date.now() < end; i++) {
      const [, q] = list[i % list.length];
      const t = performance.now();
      await http('GET', `${base}/dag-runs?${q}`);
      samples.push(performance.now() - t);
    }
  }));
  return { requests: samples.length, p50: pct(samples, 50), p99: pct(samples, 99) };
}

async function benchBuild(root, dataDir, dagsDir, n, count, o, withIndex) {
  const s = await startServer(root, dataDir, dagsDir);
  try {
    const out = { startMs: s.startMs };
    if (withIndex) {
      out.indexBuildMs = await indexBuilt(s.base, dataDir);
      out.indexBytes = statSync(join(dataDir, 'index', 'runs.sqlite')).size;
      console.log(`    index built in ${out.indexBuildMs} ms (${Math.round(out.indexBytes / 2 ** 20)} MiB)`);
    }
    out.scenarios = {};
    for (const [label, q, pages] of scenarios(n)) {
      const reps = q === '' && n > 20_000 ? Math.min(count, 3) : count;
      out.scenarios[label] = await timed(s.base, q, pages, reps);
      console.log(`    ${label.padEnd(36)} p50 ${String(out.scenarios[label].p50).padStart(9)} ms  p99 ${String(out.scenarios[label].p99).padStart(9)} ms  (${out.scenarios[label].listed} runs)`);
    }
    if (o.loadSeconds > 0 && withIndex) {
      out.load = await load(s.base, scenarios(n).slice(0, 7), o.loadSeconds);
      console.log(`    8 clients, ${o.loadSeconds} s: ${out.load.requests} requests, p50 ${out.load.p50} ms, p99 ${out.load.p99} ms`);
    }
    return out;
  } finally {
    await stopServer(s);
  }
}

/** create + 3 status writes per run through LocalRunStore (in this process), ms per run. */
async function writeCost(root, runs) {
  const { LocalRunStore } = await import(pathToFileURL(join(root, 'dist/adapters/store/local/run-store.js')).href);
  const { makeRun } = await import(pathToFileURL(join(root, 'dist/adapters/store/conformance.js')).href);
  const dir = mkdtempSync(join(tmpdir(), 'svc-runs-write-'));
  try {
    const store = new LocalRunStore({ dataDir: dir });
    const t = performance.now();
    for (let i = 0; i < runs; i++) {
      const run = await store.create(makeRun({ dagName: `d${i % 10}`, dagRunId: `w${i}` }));
      const key = { dagName: run.spec.dagName, dagRunId: run.spec.dagRunId };
      let v = await store.updateStatus(key, run.metadata.resourceVersion, { ...run.status, run: { ...run.status.run, status: 1, startedAt: new Date().toISOString() } });
      v = await store.updateStatus(key, v.metadata.resourceVersion, { ...v.status, attemptId: 'progress' });
      await store.updateStatus(key, v.metadata.resourceVersion, { ...v.status, run: { ...v.status.run, status: 4 } });
    }
    store.close?.();
    return Math.round(((performance.now() - t) / runs) * 1000) / 1000;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const results = { environment: { date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadAverage: loadavg(), ...o }, sizes: {} };
  if (o.writes > 0) {
    results.writeMsPerRun = { svc: await writeCost(o.svc, o.writes), ...(o.alt ? { alt: await writeCost(o.alt, o.writes) } : {}) };
    console.log(`create + 3 status writes, ms per run: ${JSON.stringify(results.writeMsPerRun)}`);
  }
  for (const n of o.runs) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-runs-bench-'));
    try {
      const dagsDir = join(dir, 'dags');
      mkdirSync(dagsDir);
      const dataDir = join(dir, 'data');
      const genMs = await generate(o.svc, dataDir, n, o.dags);
      console.log(`${n} runs over ${o.dags} DAGs generated in ${genMs} ms; load ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
      const size = { generateMs: genMs };
      if (o.alt) {
        console.log(`  alt (${o.alt}):`);
        size.alt = await benchBuild(o.alt, dataDir, dagsDir, n, o.altRequests, o, false);
      }
      console.log(`  svc (${o.svc}):`);
      size.svc = await benchBuild(o.svc, dataDir, dagsDir, n, o.requests, o, true);
      results.sizes[n] = size;
    } finally {
      if (!o.keep) rmSync(dir, { recursive: true, force: true });
      else console.log(`kept ${dir}`);
    }
  }
  if (o.out) writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
}

await main();
