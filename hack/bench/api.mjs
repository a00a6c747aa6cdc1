#!/usr/bin/env node
// API benchmark (issue 3): the svc server next to the reference implementation (Dagu 1.30.2,
// `dagu start-all`), both on loopback, same DAG files, measured in one run.
//
//   node hack/bench/api.mjs [--dags 1000] [--list-requests 50] [--starts 10] [--queue-runs 200]
//                           [--max-active 20] [--only svc,dagu] [--out results.json] [--keep]
//
// Scenarios: (a) GET /dags latency with 1,000 DAG files, perPage default (50) and 1000 (p50/p95),
// (b) POST start -> the 1-step run seen finished through the run detail (p50),
// (c) drain: enqueue 200 runs of a 1-step DAG (maxActiveRuns 20), time until all are finished.
// Every loop is bounded, every server is stopped at the end (also on Ctrl-C).
// See hack/bench/README.md. Plain ESM; svc itself must be built first (`npm run build`).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { children, findDagu, http, must, sleep, startSystem, stopSystem, versionOf } from './api-servers.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const SELF = fileURLToPath(import.meta.url);
const SYSTEMS = ['svc', 'dagu'];
// Terminal run statuses (SPEC 3.1): failed, aborted, succeeded, partially_succeeded, rejected.
const TERMINAL = new Set([2, 3, 4, 6, 8]);
const RUN_TIMEOUT_MS = 60_000;
const DRAIN_TIMEOUT_MS = 600_000;

const INT_OPTIONS = { '--dags': ['dags', 3, 20_000], '--list-requests': ['listRequests', 1, 10_000], '--starts': ['starts', 1, 1000], '--queue-runs': ['queueRuns', 1, 5000], '--max-active': ['maxActive', 1, 1000] };

function parseArgs(argv) {
  const o = { dags: 1000, listRequests: 50, starts: 10, queueRuns: 200, maxActive: 20, only: [...SYSTEMS], out: undefined, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const name = a.split('=')[0];
    const val = () => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : i + 1 < argv.length ? argv[++i] : die(`${a} needs a value`));
    if (INT_OPTIONS[name]) {
      const [key, min, max] = INT_OPTIONS[name];
      const v = Number(val());
      if (!Number.isInteger(v) || v < min || v > max) die(`${name} must be an integer from ${min} to ${max}`);
      o[key] = v;
    } else if (name === '--only') o.only = val().split(',').map((s) => s.trim()).filter(Boolean);
    else if (name === '--out') o.out = resolve(val());
    else if (name === '--keep') o.keep = true;
    else if (name === '-h' || name === '--help') {
      console.log(readFileSync(SELF, 'utf8').split('\n').slice(1, 12).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
      process.exit(0);
    } else die(`unknown argument ${a} (see --help)`);
  }
  for (const s of o.only) if (!SYSTEMS.includes(s)) die(`unknown system ${s} (known: ${SYSTEMS.join(', ')})`);
  return o;
}

function die(msg) {
  console.error(`api bench: ${msg}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// The DAG files: `one` (1 step, for start) and `queued` (1 step, maxActiveRuns N, for the drain),
// plus filler DAGs up to --dags files, each with a description, tags, params and two steps.
function writeDags(dir, total, maxActive) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'one.yaml'), 'steps:\n  - name: s1\n    command: "true"\n');
  writeFileSync(join(dir, 'queued.yaml'), `maxActiveRuns: ${maxActive}\nsteps:\n  - name: s1\n    command: "true"\n`);
  for (let i = 0; i < total - 2; i++) {
    const n = String(i).padStart(4, '0');
    writeFileSync(join(dir, `dag-${n}.yaml`), [
      `description: filler DAG number ${n} of the API bench`,
      `tags: team=t${i % 10},bench`,
      'params:', `  - COUNT: "${i}"`,
      'steps:', '  - name: first', '    command: echo $COUNT', '  - name: second', '    command: "true"', '    depends: first', '',
    ].join('\n'));
  }
}

// ---------------------------------------------------------------------------------------------
const pct = (xs, p) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const round = (v) => (v == null ? null : Math.round(v * 100) / 100);

/** (a) GET /dags: warm-up requests, then N timed sequential requests. */
async function listLatency(sys, o, perPage) {
  const url = `${sys.base}/dags${perPage ? `?perPage=${perPage}` : ''}`;
  let listed = 0;
  for (let i = 0; i < 5; i++) listed = (await must('GET', url)).dags.length;
  const samples = [];
  for (let i = 0; i < o.listRequests; i++) {
    const t = performance.now();
    await must('GET', url);
    samples.push(performance.now() - t);
  }
  return { perPage: perPage ?? 'default', listed, p50Ms: round(pct(samples, 50)), p95Ms: round(pct(samples, 95)), samplesMs: samples.map(round) };
}

async function waitFinished(sys, dagName, id) {
  const end = Date.now() + RUN_TIMEOUT_MS;
  while (Date.now() < end) {
    const r = await http('GET', `${sys.base}/dag-runs/${dagName}/${id}`);
    const st = r.status === 200 ? sys.status(r.body) : undefined;
    if (TERMINAL.has(st)) return st;
    await sleep(5);
  }
  throw new Error(`${sys.name}: run ${id} of ${dagName} not finished within ${RUN_TIMEOUT_MS / 1000}s`);
}

/** (b) POST start, then poll the run detail until it is finished; sequential repetitions. */
async function startToFinish(sys, o) {
  const samples = [];
  const statuses = [];
  for (let i = 0; i < o.starts + 1; i++) {
    const t = performance.now();
    const { dagRunId } = await must('POST', `${sys.base}/dags/one/start`, {});
    statuses.push(await waitFinished(sys, 'one', dagRunId));
    if (i > 0) samples.push(performance.now() - t); // the first one is a warm-up
  }
  return { p50Ms: round(pct(samples, 50)), minMs: round(Math.min(...samples)), samplesMs: samples.map(round), succeeded: statuses.filter((s) => s === 4).length };
}

/** Status of each id: the run list (one request), then the detail of any id the list did not show. */
async function statusesOf(sys, ids) {
  const list = await http('GET', `${sys.base}/dag-runs?name=queued`);
  const seen = new Map((list.body?.dagRuns ?? []).map((r) => [r.dagRunId, r.status]));
  const missing = ids.filter((id) => !seen.has(id)).slice(0, 50);
  for (const id of missing) {
    const r = await http('GET', `${sys.base}/dag-runs/queued/${id}`);
    if (r.status === 200) seen.set(id, sys.status(r.body));
  }
  return seen;
}

/** (c) enqueue N runs as fast as possible, then poll until every one is finished. */
async function drain(sys, o) {
  const t = performance.now();
  const ids = [];
  for (let i = 0; i < o.queueRuns; i++) ids.push((await must('POST', `${sys.base}/dags/queued/enqueue`, {})).dagRunId);
  const enqueuedMs = performance.now() - t;
  const end = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const st = await statusesOf(sys, ids);
    const done = ids.filter((id) => TERMINAL.has(st.get(id)));
    if (done.length === ids.length) {
      return { runs: ids.length, enqueueMs: round(enqueuedMs), drainMs: round(performance.now() - t), succeeded: done.filter((id) => st.get(id) === 4).length };
    }
    if (Date.now() > end) throw new Error(`${sys.name}: ${done.length}/${ids.length} queued runs finished after ${DRAIN_TIMEOUT_MS / 1000}s`);
    await sleep(50);
  }
}

async function benchSystem(name, o, dir, dagsDir, daguBin) {
  const sys = await startSystem(name, dir, dagsDir, daguBin);
  try {
    console.log(`  ${name}: up at ${sys.base}`);
    const list = [await listLatency(sys, o), await listLatency(sys, o, 1000)];
    console.log(`  ${name}: GET /dags p50 ${list[0].p50Ms} ms (perPage default), ${list[1].p50Ms} ms (perPage 1000)`);
    const start = await startToFinish(sys, o);
    console.log(`  ${name}: start -> finished p50 ${start.p50Ms} ms`);
    const queue = await drain(sys, o);
    console.log(`  ${name}: drained ${queue.runs} queued runs in ${queue.drainMs} ms`);
    return { list, start, queue };
  } finally {
    await stopSystem(sys);
  }
}

// ---------------------------------------------------------------------------------------------
const ratio = (a, b) => (a == null || b == null || b === 0 ? null : Math.round((a / b) * 1000) / 1000);

function report(results) {
  const s = results.svc;
  const d = results.dagu;
  const rows = [
    ['GET /dags p50 (perPage 50)', s?.list[0].p50Ms, d?.list[0].p50Ms],
    ['GET /dags p95 (perPage 50)', s?.list[0].p95Ms, d?.list[0].p95Ms],
    ['GET /dags p50 (perPage 1000)', s?.list[1].p50Ms, d?.list[1].p50Ms],
    ['GET /dags p95 (perPage 1000)', s?.list[1].p95Ms, d?.list[1].p95Ms],
    ['start -> finished p50', s?.start.p50Ms, d?.start.p50Ms],
    ['drain queued runs', s?.queue.drainMs, d?.queue.drainMs],
  ];
  const ratios = Object.fromEntries(rows.map(([k, a, b]) => [k, ratio(a, b)]));
  const fmt = (v) => (v == null ? '-' : String(v));
  console.log(`\n${'scenario'.padEnd(30)}${'svc ms'.padStart(12)}${'dagu ms'.padStart(12)}${'svc/dagu'.padStart(10)}  target <= 0.5`);
  for (const [k, a, b] of rows) {
    const r = ratios[k];
    console.log(`${k.padEnd(30)}${fmt(a).padStart(12)}${fmt(b).padStart(12)}${fmt(r).padStart(10)}  ${r === null ? '-' : r <= 0.5 ? 'met' : 'NOT met'}`);
  }
  return ratios;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const daguBin = o.only.includes('dagu') ? findDagu() : undefined;
  if (o.only.includes('dagu') && !daguBin) {
    console.error('!! REFERENCE IMPLEMENTATION MISSING: no dagu binary (npm i -D -E @dagu-org/dagu-linux-x64@1.30.2, or DAGU_BIN); svc only.');
    o.only = o.only.filter((s) => s !== 'dagu');
  }
  if (o.only.includes('svc') && !existsSync(join(ROOT, 'dist/cli/main.js'))) die('dist/ is missing: run npm run build first');
  const dir = mkdtempSync(join(tmpdir(), 'svc-api-bench-'));
  const cleanup = async () => {
    for (const c of children) c.kill('SIGKILL');
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  const environment = {
    date: new Date().toISOString(), node: process.version, kernel: release(), cpus: cpus().length, memoryMiB: Math.round(totalmem() / 2 ** 20),
    loadAverage: loadavg().map((v) => round(v)), dagu: daguBin ? versionOf(daguBin) : null, ...o,
  };
  console.log(`API bench: ${o.dags} DAG files, ${o.listRequests} list requests, ${o.starts} starts, ${o.queueRuns} queued runs (maxActiveRuns ${o.maxActive}); load ${environment.loadAverage.join(' ')}`);
  const results = {};
  const failures = [];
  try {
    for (const name of o.only) {
      // Fresh DAGs dir per system: the reference writes nothing there, but neither sees the other's files.
      const dagsDir = join(dir, `${name}-dags`);
      writeDags(dagsDir, o.dags, o.maxActive);
      try {
        results[name] = await benchSystem(name, o, dir, dagsDir, daguBin);
      } catch (e) {
        failures.push(`${name}: ${e.message}`);
        console.error(`  ${name} FAILED: ${e.message}`);
      }
    }
    const ratios = report(results);
    if (o.out) writeFileSync(o.out, `${JSON.stringify({ environment, results, ratios, failures }, null, 2)}\n`);
    if (o.keep) console.log(`kept ${dir}`);
  } finally {
    await cleanup();
  }
  process.exitCode = failures.length ? 1 : 0;
}

await main();
