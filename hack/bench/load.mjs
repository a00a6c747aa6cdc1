#!/usr/bin/env node
// Load benchmark (issue 20, item 14): 50 concurrent clients over a mixed workload (list, start, log),
// svc next to the reference implementation (Dagu, `dagu start-all`), both on loopback, same DAG files.
//
//   node hack/bench/load.mjs [--clients 50] [--seconds 30] [--history 300] [--dags 200]
//                            [--only svc,dagu] [--out results.json]
//
// Each system starts fresh on the same DAG files: --dags filler DAGs (listed) and one 1-step DAG per
// client (maxActiveRuns 100). --history runs are made first (10 clients, not timed) so that lists and
// logs have something to read. Then --clients clients loop for --seconds, each waiting for its answer
// before its next request, in turn: GET /dags, POST /dags/{own}/start, GET the run log of a finished run
// of its DAG (the reference answers its step log endpoint with a bare 500), GET /dag-runs?name={own}. Per kind: p50/p95/p99/max, and errors (a non-200 answer).
// Afterwards every started run must finish (bounded): the count of finished and succeeded is reported.
// Figures, not assertions: see hack/bench/README.md. Plain ESM; svc must be built (`npm run build`).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { children, findDagu, http, sleep, startSystem, stopSystem, versionOf } from './api-servers.mjs';

const SYSTEMS = ['svc', 'dagu'];
const TERMINAL = new Set([2, 3, 4, 6, 8]);
const KINDS = ['list', 'start', 'log', 'runs'];

function parseArgs(argv) {
  const o = { clients: 50, seconds: 30, history: 300, dags: 200, only: [...SYSTEMS], out: undefined };
  const ints = { '--clients': ['clients', 1, 500], '--seconds': ['seconds', 1, 3600], '--history': ['history', 0, 100_000], '--dags': ['dags', 0, 20_000] };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split('=');
    const val = () => inline ?? argv[++i] ?? die(`${name} needs a value`);
    if (ints[name]) {
      const [key, min, max] = ints[name];
      const v = Number(val());
      if (!Number.isInteger(v) || v < min || v > max) die(`${name} must be an integer from ${min} to ${max}`);
      o[key] = v;
    } else if (name === '--only') o.only = val().split(',').map((s) => s.trim()).filter(Boolean);
    else if (name === '--out') o.out = resolve(val());
    else die(`unknown argument ${argv[i]}`);
  }
  for (const s of o.only) if (!SYSTEMS.includes(s)) die(`unknown system ${s} (known: ${SYSTEMS.join(', ')})`);
  return o;
}

function die(msg) {
  console.error(`load bench: ${msg}`);
  process.exit(2);
}

const clientDag = (i) => `c-${String(i).padStart(3, '0')}`;

function writeDags(dir, o) {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < o.clients; i++) {
    writeFileSync(join(dir, `${clientDag(i)}.yaml`), 'maxActiveRuns: 100\nsteps:\n  - name: s1\n    command: echo hello from the load bench\n');
  }
  for (let i = 0; i < o.dags; i++) {
    const n = String(i).padStart(4, '0');
    writeFileSync(join(dir, `dag-${n}.yaml`), [
      `description: filler DAG number ${n} of the load bench`, `tags: team=t${i % 10},bench`,
      'steps:', '  - name: first', '    command: echo one', '  - name: second', '    command: "true"', '    depends: first', '',
    ].join('\n'));
  }
}

const pct = (xs, p) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] * 10) / 10;
};
const summary = (xs) => ({ n: xs.length, p50: pct(xs, 50), p95: pct(xs, 95), p99: pct(xs, 99), max: pct(xs, 100) });

/** One client's requests, in turn, until `until`; every answer timed. */
async function client(sys, i, until, samples, errors, started) {
  const dag = clientDag(i);
  let finished;
  const requests = {
    list: () => http('GET', `${sys.base}/dags`),
    start: async () => {
      const r = await http('POST', `${sys.base}/dags/${dag}/start`, {});
      if (r.status === 200) started.push([dag, r.body.dagRunId]);
      return r;
    },
    log: async () => {
      finished ??= await lastFinished(sys, dag);
      return finished ? http('GET', `${sys.base}/dag-runs/${dag}/${finished}/log`) : { status: 200 };
    },
    runs: () => http('GET', `${sys.base}/dag-runs?name=${dag}`),
  };
  for (let k = i % KINDS.length; Date.now() < until; k = (k + 1) % KINDS.length) {
    const kind = KINDS[k];
    const t = performance.now();
    const r = await requests[kind]().catch((e) => ({ status: 0, text: String(e) }));
    samples[kind].push(performance.now() - t);
    if (r.status !== 200) errors.push(`${kind} ${r.status} ${(r.text ?? '').slice(0, 120)}`);
  }
}

async function lastFinished(sys, dag) {
  const r = await http('GET', `${sys.base}/dag-runs?name=${dag}`);
  return (r.body?.dagRuns ?? []).find((x) => x.status === 4)?.dagRunId;
}

/** Makes `n` runs with 10 clients and waits for them (so lists and logs have history). */
async function history(sys, o) {
  const ids = [];
  let next = 0;
  await Promise.all(Array.from({ length: 10 }, async () => {
    while (next < o.history) {
      const i = next++;
      const dag = clientDag(i % o.clients);
      const r = await http('POST', `${sys.base}/dags/${dag}/start`, {});
      if (r.status !== 200) throw new Error(`${sys.name}: start ${dag} answered ${r.status}: ${r.text.slice(0, 200)}`);
      ids.push([dag, r.body.dagRunId]);
    }
  }));
  return settle(sys, ids, 300_000);
}

/** Waits (bounded) until every run is finished; how many finished and succeeded. */
async function settle(sys, ids, timeoutMs) {
  const end = Date.now() + timeoutMs;
  let pending = [...ids];
  let succeeded = 0;
  while (pending.length && Date.now() < end) {
    const still = [];
    for (const [dag, id] of pending) {
      const r = await http('GET', `${sys.base}/dag-runs/${dag}/${id}`);
      const st = r.status === 200 ? sys.status(r.body) : undefined;
      if (TERMINAL.has(st)) succeeded += st === 4 ? 1 : 0;
      else still.push([dag, id]);
    }
    pending = still;
    if (pending.length) await sleep(200);
  }
  return { runs: ids.length, finished: ids.length - pending.length, succeeded };
}

async function measure(name, o, dagsDir, daguBin) {
  const dir = mkdtempSync(join(tmpdir(), `svc-load-${name}-`));
  const sys = await startSystem(name, dir, dagsDir, daguBin);
  try {
    const t0 = performance.now();
    const made = await history(sys, o);
    const historyMs = Math.round(performance.now() - t0);
    const samples = Object.fromEntries(KINDS.map((k) => [k, []]));
    const errors = [];
    const started = [];
    const until = Date.now() + o.seconds * 1000;
    await Promise.all(Array.from({ length: o.clients }, (_, i) => client(sys, i, until, samples, errors, started)));
    const runs = await settle(sys, started, 600_000);
    const all = KINDS.flatMap((k) => samples[k]);
    return {
      system: name, history: { ...made, ms: historyMs }, requests: all.length, perSecond: Math.round(all.length / o.seconds),
      all: summary(all), ...Object.fromEntries(KINDS.map((k) => [k, summary(samples[k])])),
      errors: errors.length, errorSample: [...new Set(errors)].slice(0, 5), startedRuns: runs,
    };
  } finally {
    await stopSystem(sys);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const daguBin = findDagu();
  if (o.only.includes('dagu') && !daguBin) die('no reference binary (npm ci installs @dagu-org/dagu-linux-x64, or set DAGU_BIN); use --only svc');
  const root = mkdtempSync(join(tmpdir(), 'svc-load-dags-'));
  process.on('SIGINT', () => { for (const c of children) c.kill('SIGKILL'); process.exit(130); });
  const results = [];
  try {
    for (const name of o.only) {
      const dagsDir = join(root, name);
      writeDags(dagsDir, o); // each system its own copy: neither sees the other's writes
      console.log(`${name}: ${o.history} runs of history, then ${o.clients} clients for ${o.seconds} s ...`);
      const r = await measure(name, o, dagsDir, daguBin);
      results.push(r);
      const f = (s) => `p50 ${s.p50} / p95 ${s.p95} / p99 ${s.p99} / max ${s.max} ms (${s.n})`;
      console.log(`  ${r.requests} requests (${r.perSecond}/s), ${r.errors} errors${r.errors ? `: ${r.errorSample.join('; ')}` : ''}`);
      for (const k of [...KINDS, 'all']) console.log(`  ${k.padEnd(6)} ${f(r[k])}`);
      console.log(`  runs started under load: ${r.startedRuns.runs}, finished ${r.startedRuns.finished}, succeeded ${r.startedRuns.succeeded}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const machine = { cpus: cpus().length, model: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), loadavg: loadavg().map((l) => Math.round(l * 100) / 100), node: process.version, dagu: daguBin ? versionOf(daguBin) : undefined };
  if (o.out) writeFileSync(o.out, JSON.stringify({ options: o, machine, results }, null, 2));
  console.log(`machine: ${machine.cpus} cores, load ${machine.loadavg.join(' ')}, node ${machine.node}${machine.dagu ? `, reference ${machine.dagu}` : ''}`);
}

main().catch((e) => {
  for (const c of children) c.kill('SIGKILL');
  console.error(e);
  process.exit(1);
});
