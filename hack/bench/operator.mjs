#!/usr/bin/env node
// Operator benchmark: `svc operator` running DagRuns as Pods on the test bed (real etcd + kube-apiserver,
// node agents running Pods as local processes), driven through `svc server --backend kubernetes`.
// Figures, never assertions. Phases (each can be skipped with --skip a,b):
//   pods        Pod start: a small chain with SVC_POD_RETENTION=all (own namespace, own server and
//               operator); Pod creationTimestamp / container startedAt from kubectl, plus a watch of the
//               bench's own that timestamps each Pod's transitions to the millisecond.
//   chain       step-to-step latency beyond Pod start: a chain of --chain-steps `true` steps, --chain-runs
//               runs one after another (after one warm-up run). The node records' gap (next startedAt -
//               previous finishedAt) is 0 by construction, so each gap is read from the step processes (the
//               entry's result files) and the bench's Pod watch instead: see chainBreakdown().
//   throughput  --runs single-step DagRuns started at once by --clients clients; runs/min from the first
//               start request to the last finishedAt. Once on one DAG, once spread over --spread identical
//               DAGs (the server serialises the starts of one DAG; 0 or 1: not run).
//   mem         operator RSS (VmRSS) at start and every --mem-every finished runs up to --mem-runs
//               finished runs in all (at most --mem-inflight at a time), stopped after --mem-minutes.
// API writes (kube-apiserver /metrics, apiserver_request_total, write verbs) are counted around the
// chain and throughput batches, with the idle rate of the test bed (Node and controller Leases)
// measured beforehand and subtracted.
//
//   node hack/bench/operator.mjs [--quick] [--runs 300] [--clients 4] [--chain-runs 10] [--chain-steps 20]
//     [--pod-runs 2] [--mem-runs 5000] [--mem-every 500] [--mem-inflight 40] [--mem-minutes 15]
//     [--idle-seconds 20] [--spread 4] [--skip pods,chain,throughput,mem] [--dir /tmp/svc-bench-tb] [--out f.json] [--keep]
//     [--mem-detail]   (memory samples add the operator's heap after a forced GC, through --inspect)
//     [--operator-env K=V]...   (more environment for the main operator: A/B of a setting)
//
// Needs `npm run build` (dist/, dist/image/usr/local/bin/svc-entry) and the test bed binaries
// (hack/testbed build). Prints JSON lines (prefix `{"figure":`), then a summary. Plain ESM.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, http, must, sleep } from './api-servers.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (p) => import(join(ROOT, 'dist', p));
const { isRunTerminal, RunStatus } = await dist('core/run/status.js');
const { dagRunName } = await dist('core/naming.js');

const FULL = { runs: 300, clients: 4, chainRuns: 10, chainSteps: 20, podRuns: 2, memRuns: 5000, memEvery: 500, memInflight: 40, memMinutes: 15, idleSeconds: 20, spread: 4 };
const QUICK = { runs: 30, clients: 4, chainRuns: 2, chainSteps: 20, podRuns: 1, memRuns: 200, memEvery: 100, memInflight: 40, memMinutes: 2, idleSeconds: 5, spread: 4 };
const NUMERIC = { '--runs': 'runs', '--clients': 'clients', '--chain-runs': 'chainRuns', '--chain-steps': 'chainSteps', '--pod-runs': 'podRuns', '--mem-runs': 'memRuns', '--mem-every': 'memEvery', '--mem-inflight': 'memInflight', '--mem-minutes': 'memMinutes', '--idle-seconds': 'idleSeconds', '--spread': 'spread' };
const PHASES = ['pods', 'chain', 'throughput', 'mem'];
const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'DELETECOLLECTION', 'APPLY']);
const NS = 'default';
const POD_NS = 'bench-pods';

function parseArgs(argv) {
  const quick = argv.includes('--quick');
  const o = { ...(quick ? QUICK : FULL), quick, skip: new Set(), operatorEnv: {}, dir: '/tmp/svc-bench-tb', out: undefined, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const eq = argv[i].startsWith('--') ? argv[i].indexOf('=') : -1;
    const [name, inline] = eq > 0 ? [argv[i].slice(0, eq), argv[i].slice(eq + 1)] : [argv[i], undefined];
    const val = () => inline ?? argv[++i];
    if (NUMERIC[name]) o[NUMERIC[name]] = Number(val());
    else if (name === '--skip') o.skip = new Set(val().split(',').filter(Boolean));
    else if (name === '--dir') o.dir = resolve(val());
    else if (name === '--out') o.out = resolve(val());
    else if (name === '--keep') o.keep = true;
    else if (name === '--mem-detail') o.memDetail = true;
    else if (name === '--operator-env') { const kv = val(); o.operatorEnv[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1); }
    else if (name !== '--quick') { console.error(`operator bench: unknown argument ${argv[i]}`); process.exit(2); }
  }
  for (const p of o.skip) if (!PHASES.includes(p)) { console.error(`operator bench: --skip takes ${PHASES.join(',')}`); process.exit(2); }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Figures

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN; };
const r1 = (x) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : null);
const dist3 = (xs) => ({ n: xs.length, p50: r1(pct(xs, 50)), p90: r1(pct(xs, 90)), p99: r1(pct(xs, 99)), max: r1(Math.max(...xs)), mean: r1(xs.reduce((a, b) => a + b, 0) / xs.length) });
const ms = (iso) => Date.parse(iso);
/** RFC 3339 with nanoseconds (the entry's result file) to fractional ms. */
const nsMs = (iso) => { const m = /\.(\d+)Z$/.exec(iso); return Date.parse(iso.replace(/\.\d+Z$/, 'Z')) + (m ? Number(`0.${m[1]}`) * 1000 : 0); };

const results = { machine: {}, options: {}, figures: {} };
function figure(name, value) {
  results.figures[name] = value;
  console.log(JSON.stringify({ figure: name, ...value }));
}

// ---------------------------------------------------------------------------------------------
// Processes: every child is killed on exit; the test bed is torn down.

const children = new Set();
let testbedDir;
function cleanup() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
  if (testbedDir) spawnSync('bash', [join(ROOT, 'hack/testbed'), 'down', '--dir', testbedDir], { stdio: 'ignore' });
  testbedDir = undefined;
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { console.error(`operator bench: ${sig}, cleaning up`); cleanup(); process.exit(130); });

function testbedUp(dir) {
  const check = spawnSync('bash', [join(ROOT, 'hack/testbed.d/build.sh'), '--check'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error('the test bed binaries are not built: hack/testbed build');
  if (existsSync(join(dir, 'state.json'))) throw new Error(`${dir} holds a test bed already: hack/testbed down --dir ${dir}`);
  testbedDir = dir;
  const out = execFileSync('bash', [join(ROOT, 'hack/testbed'), 'up', '--dir', dir, '--json'], { encoding: 'utf8', env: { ...process.env, SVC_TESTBED_BIN: check.stdout.trim() } });
  return JSON.parse(out.trim().split('\n').pop());
}

let kube;
function kubectl(args, opts = {}) {
  return execFileSync(join(kube.bin, 'kubectl'), ['--kubeconfig', kube.kubeconfig, ...args], { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
}

function spawnSvc(name, args, env, nodeArgs = []) {
  const proc = spawn(process.execPath, [...nodeArgs, join(ROOT, 'bin/svc.js'), ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p = { name, proc, out: '', err: '' };
  proc.stdout.on('data', (d) => {
    p.out = (p.out + d).slice(-16000);
    p.leading ||= p.out.includes('operator leading');
  });
  proc.stderr.on('data', (d) => { p.err = (p.err + d).slice(-8000); });
  children.add(proc);
  proc.once('exit', (code, sig) => { if (children.delete(proc)) console.error(`operator bench: ${name} exited (${code ?? sig}): ${p.err.slice(-2000)}`); });
  return p;
}

async function stop(p) {
  if (!p || p.proc.exitCode !== null || p.proc.signalCode !== null) return;
  children.delete(p.proc);
  p.proc.kill('SIGTERM');
  for (let i = 0; i < 100 && p.proc.exitCode === null && p.proc.signalCode === null; i++) await sleep(50);
  if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
}

async function until(what, fn, timeoutMs, everyMs = 200) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** `svc server --backend kubernetes` and `svc operator` on one namespace, sharing one data dir. */
async function startPair(namespace, dataDir, operatorEnv = {}, operatorNodeArgs = []) {
  const env = { SVC_NAMESPACE: namespace, SVC_KUBECONFIG: kube.kubeconfig, SVC_DATA_DIR: dataDir };
  const port = await freePort();
  const server = spawnSvc(`server(${namespace})`, ['server', '--backend', 'kubernetes'], { ...env, SVC_HOST: '127.0.0.1', SVC_PORT: String(port) });
  const operator = spawnSvc(`operator(${namespace})`, ['operator'], { ...env, ...operatorEnv }, operatorNodeArgs);
  const url = `http://127.0.0.1:${port}/api/v2`;
  await until('the server to answer /health', async () => (await http('GET', `${url}/health`).catch(() => undefined))?.status === 200, 60_000, 100);
  await until('the operator to lead', () => {
    if (operator.proc.exitCode !== null) throw new Error(`the operator exited: ${operator.err.slice(-1000)}`);
    return operator.leading;
  }, 60_000, 100);
  return { url, server, operator, dataDir, namespace };
}

/** CPU seconds (user + system, with reaped children: an agent's step processes) of each process. */
function cpuTimes(procs) {
  const out = {};
  for (const [name, pid] of Object.entries(procs)) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      out[name] = (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
    } catch { out[name] = NaN; }
  }
  // The whole machine (/proc/stat, every CPU, busy time): what is not ours is someone else's load.
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  out['machine busy'] = (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / 100;
  return out;
}
function cpuDiff(a, b, seconds) {
  const d = Object.fromEntries(Object.keys(b).map((k) => [k, Math.round((b[k] - a[k]) * 100) / 100]));
  const ours = Object.entries(d).filter(([k]) => k !== 'machine busy').reduce((x, [, v]) => x + v, 0);
  d['not ours'] = Math.round((d['machine busy'] - ours) * 100) / 100;
  return { seconds: r1(seconds), cpuSeconds: Object.fromEntries(Object.entries(d).sort((x, y) => y[1] - x[1])) };
}
const processes = (api) => ({
  ...Object.fromEntries(kube.control.map((c) => [c.name, c.pid])), ...Object.fromEntries(kube.agents.map((a) => [a.name, a.pid])),
  'svc operator': api.operator.proc.pid, 'svc server': api.server.proc.pid, bench: process.pid,
});

/** VmRSS (or another field of /proc/<pid>/status: RssAnon, RssFile) in MiB. */
const rss = (pid, field = 'VmRSS') => { const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8')); return m ? Math.round(Number(m[1]) / 1024 * 10) / 10 : null; };

// ---------------------------------------------------------------------------------------------
// API writes: apiserver_request_total of the write verbs, by resource[/subresource].

function writeCounts() {
  const counts = {};
  for (const line of kubectl(['get', '--raw', '/metrics']).split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!WRITE_VERBS.has(labels.verb)) continue;
    const key = `${labels.resource}${labels.subresource ? `/${labels.subresource}` : ''} ${labels.verb}${labels.code.startsWith('2') ? '' : ` ${labels.code}`}`;
    counts[key] = (counts[key] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return counts;
}
const diff = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - (a[k] ?? 0)]).filter(([, v]) => v > 0));

/** Writes per second of the idle test bed (agents' and controllers' Leases, Node status). */
async function idleRate(seconds) {
  const a = writeCounts();
  const t = Date.now();
  await sleep(seconds * 1000);
  const d = diff(a, writeCounts());
  const s = (Date.now() - t) / 1000;
  return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v / s]));
}

function writesPerStep(before, after, seconds, idle, steps) {
  const raw = diff(before, after);
  const rows = Object.entries(raw).map(([key, n]) => {
    const background = (idle[key] ?? 0) * seconds;
    return { key, total: n, background: r1(background), perStep: Math.round(Math.max(0, n - background) / steps * 100) / 100 };
  }).sort((x, y) => y.perStep - x.perStep || y.total - x.total);
  const sum = rows.reduce((a, r) => a + r.perStep, 0);
  return { steps, seconds: r1(seconds), perStep: Math.round(sum * 100) / 100, rows };
}

// ---------------------------------------------------------------------------------------------
// Runs through the REST API

const chainDag = (n) => ['type: graph', 'steps:', ...Array.from({ length: n }, (_, i) => [
  `  - name: s${String(i).padStart(2, '0')}`, '    command: "true"', ...(i > 0 ? [`    depends: [s${String(i - 1).padStart(2, '0')}]`] : []),
].join('\n'))].join('\n');
const ONE_STEP = 'steps:\n  - name: one\n    command: "true"\n';

async function putDag(api, name, spec) {
  const r = await http('POST', `${api.url}/dags`, { name, spec });
  if (r.status !== 201 && r.status !== 200) throw new Error(`POST /dags ${name} answered ${r.status}: ${r.text.slice(0, 300)}`);
}
const startRun = async (api, dag) => (await must('POST', `${api.url}/dags/${dag}/start`, {})).dagRunId;

async function waitRun(api, dag, id, timeoutMs) {
  return until(`run ${dag}/${id}`, async () => {
    const d = (await must('GET', `${api.url}/dag-runs/${dag}/${id}`)).dagRun;
    return isRunTerminal(d.status) ? d : undefined;
  }, timeoutMs, 250);
}

/**
 * Runs in flight, watched with one list request per poll (`GET /dag-runs?name=&fromDate=`, answered from
 * the server's cache) rather than one request per run.
 */
class Tracker {
  constructor(api) {
    Object.assign(this, { api, pending: new Map(), done: [], waiters: [], polling: undefined, lastProgress: Date.now() });
  }

  add(dag, id, requestedAt, respondedAt) {
    this.pending.set(`${dag}/${id}`, { requestedAt, respondedAt });
    this.polling ??= this.poll().finally(() => { this.polling = undefined; });
  }

  async poll() {
    while (this.pending.size > 0) {
      await sleep(500);
      const from = Math.floor(Math.min(...[...this.pending.values()].map((p) => p.requestedAt)) / 1000) - 2;
      const { dagRuns } = await must('GET', `${this.api.url}/dag-runs?fromDate=${from}`);
      for (const r of dagRuns) {
        const key = `${r.name}/${r.dagRunId}`;
        const p = this.pending.get(key);
        if (p === undefined || !isRunTerminal(r.status)) continue;
        this.pending.delete(key);
        this.done.push({ dag: r.name, id: r.dagRunId, status: r.status, ...p, startedAt: ms(r.startedAt), finishedAt: ms(r.finishedAt) });
        this.lastProgress = Date.now();
      }
      for (const w of this.waiters.splice(0)) w();
      if (Date.now() - this.lastProgress > 120_000) throw new Error(`no run finished for 120 s (${this.pending.size} in flight)`);
    }
  }

  /** Resolves at the next poll. */
  tick() { return new Promise((r) => { this.waiters.push(r); }); }

  async drain() { while (this.pending.size > 0) await (this.polling ?? sleep(10)); }
}

/** Starts `n` runs of the `dags` in turn, `clients` at a time, at most `inflight` unfinished. */
async function runMany(api, dags, n, { clients, inflight = Infinity, tracker = new Tracker(api), onProgress }) {
  let next = 0;
  const first = Date.now();
  let lastStart = first;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < n) {
      while (tracker.pending.size >= inflight) { await tracker.tick(); await onProgress?.(tracker); }
      const dag = dags[next++ % dags.length];
      const t = Date.now();
      const id = await startRun(api, dag);
      tracker.add(dag, id, t, Date.now());
      lastStart = Date.now();
    }
  }));
  while (tracker.pending.size > 0) { await tracker.tick(); await onProgress?.(tracker); }
  return { first, lastStart, done: tracker.done };
}

// ---------------------------------------------------------------------------------------------
// Phases

/** The entry's result files of a run: step -> {startedAt, finishedAt} of the process, ns precision. */
function entryTimes(dataDir, dag, id) {
  const out = {};
  const attempts = join(dataDir, 'runs', dagRunName(dag, id), 'attempts');
  if (!existsSync(attempts)) return out;
  for (const a of readdirSync(attempts)) {
    const dir = join(attempts, a, 'exec', 'results');
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) {
      const r = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      if (r.startedAt && r.finishedAt) out[f.replace(/\.\d+\.json$/, '')] = { start: nsMs(r.startedAt), end: nsMs(r.finishedAt) };
    }
  }
  return out;
}

/**
 * The bench's own watch of a namespace's Pods: when each transition reached it (ms, this machine's clock,
 * the one the operator and the entry use): added (the Pod was created), bound (nodeName set), running
 * (the container shown running or terminated), done (phase Succeeded/Failed). Keyed by run id and step.
 */
async function watchPods(namespace) {
  const { KubeConfig, Watch } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromFile(kube.kubeconfig);
  const byName = new Map();
  const now = () => performance.timeOrigin + performance.now();
  const ctl = await new Watch(kc).watch(`/api/v1/namespaces/${namespace}/pods`, {}, (type, pod) => {
    let s = byName.get(pod.metadata.name);
    if (!s) {
      const id = JSON.parse(pod.metadata.annotations?.['svc.io/exec-identity'] ?? '{}');
      s = { key: `${id.dagRunId}/${id.node}` };
      byName.set(pod.metadata.name, s);
    }
    const mark = (k) => { s[k] ??= now(); };
    if (type === 'ADDED') mark('added');
    if (pod.spec.nodeName) mark('bound');
    const st = pod.status?.containerStatuses?.[0]?.state;
    if (st?.running || st?.terminated) mark('running');
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') mark('done');
  }, () => undefined);
  return {
    get: (dagRunId, node) => [...byName.values()].find((s) => s.key === `${dagRunId}/${node}`),
    stop: () => ctl.abort(),
  };
}

/**
 * Chain runs, per step and per gap between two steps, from the node records (operator clock), the entry's
 * result files (the step process, ns) and the bench's Pod watch:
 *   recordGap    next node startedAt - node finishedAt: 0 by construction (one decision stamps both)
 *   procToProc   next step's process start - this step's process end: what a user sees between steps
 *   beyondPod    next step's Pod created (watch ADDED) - this step's process end: the orchestration
 *                latency beyond Pod start, split into
 *     notice     this node's finishedAt - process end (agent's status patch, watch event, result file)
 *     toCreate   next Pod created - node finishedAt (decide, status hand-over, Pod create request)
 *   podStart     next step's process start - its Pod created (schedule, bind, agent start, entry start)
 *   launch       process start - node startedAt; run: the process itself; step: node finishedAt - startedAt
 */
function chainBreakdown(api, dag, runs, pods) {
  const b = { recordGap: [], procToProc: [], beyondPod: [], notice: [], toCreate: [], podStart: [], launch: [], run: [], step: [], runWall: [] };
  for (const d of runs) {
    const nodes = d.nodes.map((n) => ({ name: n.step.name, start: ms(n.startedAt), end: ms(n.finishedAt) })).sort((x, y) => x.start - y.start);
    const entry = entryTimes(api.dataDir, dag, d.dagRunId);
    b.runWall.push(ms(d.finishedAt) - ms(d.startedAt));
    nodes.forEach((n, i) => {
      const e = entry[n.name];
      const pod = pods?.get(d.dagRunId, n.name);
      b.step.push(n.end - n.start);
      if (e) { b.launch.push(e.start - n.start); b.run.push(e.end - e.start); b.notice.push(n.end - e.end); }
      if (e && pod?.added) b.podStart.push(e.start - pod.added);
      if (i === 0) return;
      const prev = nodes[i - 1];
      const pe = entry[prev.name];
      b.recordGap.push(n.start - prev.end);
      if (pe && e) b.procToProc.push(e.start - pe.end);
      if (pe && pod?.added) { b.beyondPod.push(pod.added - pe.end); b.toCreate.push(pod.added - prev.end); }
    });
  }
  return Object.fromEntries(Object.entries(b).filter(([, xs]) => xs.length).map(([k, xs]) => [k, dist3(xs)]));
}

async function podsPhase(o, dataRoot) {
  kubectl(['create', 'namespace', POD_NS]);
  await until(`ServiceAccount default in ${POD_NS}`, () => { try { kubectl(['get', 'sa', 'default', '-n', POD_NS]); return true; } catch { return false; } }, 60_000, 250);
  const api = await startPair(POD_NS, join(dataRoot, 'pods'), { SVC_POD_RETENTION: 'all' });
  const watch = await watchPods(POD_NS);
  try {
    await putDag(api, 'bench-pods', chainDag(o.chainSteps));
    const runs = [];
    for (let i = 0; i < o.podRuns; i++) runs.push(await waitRun(api, 'bench-pods', await startRun(api, 'bench-pods'), 300_000));
    await sleep(1000);
    const pods = JSON.parse(kubectl(['get', 'pods', '-n', POD_NS, '-o', 'json'])).items;
    const k = { createdToStarted: [], createdToFinished: [] };
    const w = { createToBound: [], boundToRunning: [], createToProcess: [], processRun: [], processEndToDone: [], createToDone: [] };
    for (const p of pods) {
      const t = p.status.containerStatuses?.[0]?.state?.terminated;
      if (!t) continue;
      k.createdToStarted.push((ms(t.startedAt) - ms(p.metadata.creationTimestamp)) / 1000);
      k.createdToFinished.push((ms(t.finishedAt) - ms(p.metadata.creationTimestamp)) / 1000);
      const id = JSON.parse(p.metadata.annotations['svc.io/exec-identity']);
      const s = watch.get(id.dagRunId, id.node);
      const e = entryTimes(api.dataDir, id.dagName, id.dagRunId)[id.node];
      if (!s?.added) continue;
      if (s.bound) w.createToBound.push(s.bound - s.added);
      if (s.bound && s.running) w.boundToRunning.push(s.running - s.bound);
      if (e) { w.createToProcess.push(e.start - s.added); w.processRun.push(e.end - e.start); }
      if (e && s.done) w.processEndToDone.push(s.done - e.end);
      if (s.done) w.createToDone.push(s.done - s.added);
    }
    figure('pod_start_kubectl_s', { pods: k.createdToStarted.length, note: 'creationTimestamp and container startedAt/finishedAt have 1 s resolution', createdToStarted: dist3(k.createdToStarted), createdToFinished: dist3(k.createdToFinished) });
    figure('pod_start_watch_ms', { pods: w.createToBound.length, note: 'bench watch: Pod ADDED, nodeName set, container running seen, phase Succeeded seen; entry process start/end', ...Object.fromEntries(Object.entries(w).map(([n, xs]) => [n, dist3(xs)])) });
    figure('pod_chain_ms', { runs: runs.length, ...chainBreakdown(api, 'bench-pods', runs, watch) });
  } finally {
    watch.stop();
    await stop(api.operator);
    await stop(api.server);
  }
  // Its deletion (the namespace controller deleting every kind of object) must not count as idle writes.
  kubectl(['delete', 'namespace', POD_NS, '--timeout=180s']);
}

async function chainPhase(o, api, idle) {
  await putDag(api, 'bench-chain', chainDag(o.chainSteps));
  // One warm-up run, thrown away (JIT, first Pod of the node agents).
  await waitRun(api, 'bench-chain', await startRun(api, 'bench-chain'), 300_000);
  await podsGone();
  const watch = await watchPods(NS);
  const before = writeCounts();
  const cpu = cpuTimes(processes(api));
  const t = Date.now();
  const runs = [];
  try {
    for (let i = 0; i < o.chainRuns; i++) runs.push(await waitRun(api, 'bench-chain', await startRun(api, 'bench-chain'), 300_000));
    await podsGone();
  } finally {
    watch.stop();
  }
  const seconds = (Date.now() - t) / 1000;
  const failed = runs.filter((r) => r.status !== RunStatus.Succeeded).length;
  figure('chain_latency_ms', { runs: runs.length, steps: o.chainSteps, failed, ...chainBreakdown(api, 'bench-chain', runs, watch) });
  figure('chain_writes', writesPerStep(before, writeCounts(), seconds, idle, runs.length * o.chainSteps));
  figure('chain_cpu', cpuDiff(cpu, cpuTimes(processes(api)), seconds));
  return runs.length + 1;
}

async function podsGone() {
  await until('the step Pods to be deleted', () => JSON.parse(kubectl(['get', 'pods', '-n', NS, '-o', 'json'])).items.length === 0, 120_000, 500);
}

/**
 * Where a single-step run's time goes under load (ms): startRequest = the start request's round trip (the
 * server's admission and create, queued behind the other starts of the DAG); toRunStart = run startedAt -
 * its response (the DagRun watch event, the operator picking the run up); toPodCreate = Pod created (watch ADDED) - run
 * startedAt; podStart = process start - Pod created (podBound: nodeName set - Pod created, the test bed's
 * scheduling; boundToProcess: the agent starting it); process; toRunFinish = run finishedAt - process end
 * (agent's status patch, Pod watch event, result file, run decided done).
 */
function runBreakdown(api, done, pods) {
  const b = { startRequest: [], toRunStart: [], toPodCreate: [], podStart: [], podBound: [], boundToProcess: [], process: [], toRunFinish: [] };
  for (const d of done) {
    const pod = pods.get(d.id, 'one');
    const e = entryTimes(api.dataDir, d.dag, d.id).one;
    b.startRequest.push(d.respondedAt - d.requestedAt);
    b.toRunStart.push(d.startedAt - d.respondedAt);
    if (pod?.added) b.toPodCreate.push(pod.added - d.startedAt);
    if (pod?.added && e) b.podStart.push(e.start - pod.added);
    if (pod?.added && pod.bound) b.podBound.push(pod.bound - pod.added);
    if (pod?.bound && e) b.boundToProcess.push(e.start - pod.bound);
    if (e) { b.process.push(e.end - e.start); b.toRunFinish.push(d.finishedAt - e.end); }
  }
  return Object.fromEntries(Object.entries(b).filter(([, xs]) => xs.length).map(([k, xs]) => [k, dist3(xs)]));
}

/**
 * `dags` identical one-step DAGs, started in turn: the server serialises the starts of one DAG (its
 * admission check and create), so with one DAG the start rate can cap the figure; several lift that cap.
 */
async function throughputPhase(o, api, idle, dags) {
  const names = dags === 1 ? ['bench-one'] : Array.from({ length: dags }, (_, i) => `bench-spread-${i}`);
  for (const n of names) await putDag(api, n, ONE_STEP);
  await runMany(api, names, names.length, { clients: o.clients });
  await podsGone();
  const watch = await watchPods(NS);
  const before = writeCounts();
  const cpu = cpuTimes(processes(api));
  const t = Date.now();
  let first, lastStart, done;
  try {
    ({ first, lastStart, done } = await runMany(api, names, o.runs, { clients: o.clients }));
    await podsGone();
  } finally {
    watch.stop();
  }
  const last = Math.max(...done.map((d) => d.finishedAt));
  const seconds = (Date.now() - t) / 1000;
  const minutes = (last - first) / 60_000;
  const failed = done.filter((d) => d.status !== RunStatus.Succeeded).length;
  const key = dags === 1 ? 'throughput' : `throughput_${dags}_dags`;
  figure(key, {
    runs: done.length, failed, dags, clients: o.clients, seconds: r1((last - first) / 1000), runsPerMinute: Math.round(done.length / minutes),
    startsPerMinute: Math.round(done.length / ((lastStart - first) / 60_000)),
    requestToFinishMs: dist3(done.map((d) => d.finishedAt - d.requestedAt)),
    runStartToFinishMs: dist3(done.map((d) => d.finishedAt - d.startedAt)),
    breakdownMs: runBreakdown(api, done, watch),
  });
  figure(`${key}_writes`, writesPerStep(before, writeCounts(), seconds, idle, done.length));
  figure(`${key}_cpu`, cpuDiff(cpu, cpuTimes(processes(api)), seconds));
  return done.length + names.length;
}

/**
 * --mem-detail: the operator runs with --inspect on a loopback port; each sample asks it, through the
 * inspector protocol, for a full GC and then process.memoryUsage(): live heap, and what lives off the V8
 * heap (ArrayBuffers, external). Forcing GCs changes the RSS course a little: the headline run goes without.
 */
async function inspectMemory(port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((res, rej) => { ws.onopen = res; ws.onerror = rej; });
  let id = 0;
  const call = (method, params = {}) => new Promise((res, rej) => {
    const my = ++id;
    ws.addEventListener('message', function on(ev) {
      const m = JSON.parse(ev.data);
      if (m.id !== my) return;
      ws.removeEventListener('message', on);
      if (m.error) rej(new Error(m.error.message)); else res(m.result);
    });
    ws.send(JSON.stringify({ id: my, method, params }));
  });
  try {
    await call('HeapProfiler.collectGarbage');
    const r = await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const u = JSON.parse(r.result.value);
    const mib = (b) => Math.round(b / 1048576 * 10) / 10;
    return { afterGc: { rssMiB: mib(u.rss), heapUsedMiB: mib(u.heapUsed), heapTotalMiB: mib(u.heapTotal), externalMiB: mib(u.external), arrayBuffersMiB: mib(u.arrayBuffers) } };
  } finally {
    ws.close();
  }
}

/** RSS of the operator and the server (and with --mem-detail the operator's heap after a forced GC). */
async function memSample(api, finished, t0) {
  const s = { finished, minutes: r1((Date.now() - t0) / 60_000), operatorMiB: rss(api.operator.proc.pid), operatorAnonMiB: rss(api.operator.proc.pid, 'RssAnon'), serverMiB: rss(api.server.proc.pid) };
  if (api.inspectPort) Object.assign(s, await inspectMemory(api.inspectPort).catch((e) => ({ inspectError: e.message })));
  return s;
}

async function memPhase(o, api, finishedBefore, samples) {
  await putDag(api, 'bench-mem', ONE_STEP);
  const deadline = Date.now() + o.memMinutes * 60_000;
  const tracker = new Tracker(api);
  const cpu = cpuTimes(processes(api));
  let next = Math.ceil((finishedBefore + 1) / o.memEvery) * o.memEvery;
  const t0 = Date.now();
  const sample = async () => {
    const finished = finishedBefore + tracker.done.length;
    if (finished < next) return;
    next = (Math.floor(finished / o.memEvery) + 1) * o.memEvery;
    const s = await memSample(api, finished, t0);
    samples.push(s);
    console.log(JSON.stringify({ progress: 'mem', ...s }));
  };
  const todo = Math.max(0, o.memRuns - finishedBefore);
  let stoppedEarly = false;
  // Started in chunks so the time limit is checked between them.
  for (let left = todo; left > 0;) {
    if (Date.now() > deadline) { stoppedEarly = true; break; }
    const n = Math.min(left, o.memEvery);
    await runMany(api, ['bench-mem'], n, { clients: 2, inflight: o.memInflight, tracker, onProgress: sample });
    await sample();
    left -= n;
  }
  await tracker.drain();
  const finished = finishedBefore + tracker.done.length;
  if (samples.at(-1)?.finished !== finished) samples.push(await memSample(api, finished, t0));
  const failed = tracker.done.filter((d) => d.status !== RunStatus.Succeeded).length;
  const fit = trend(samples.filter((s) => s.finished >= 1000));
  const minutes = (Date.now() - t0) / 60_000;
  figure('operator_memory', { finished, failed, stoppedEarly, minutes: r1(minutes), sustainedRunsPerMinute: Math.round(tracker.done.length / minutes), inflight: o.memInflight, perThousandRunsMiB: fit, samples, cpu: cpuDiff(cpu, cpuTimes(processes(api)), (Date.now() - t0) / 1000) });
}

/** Least-squares slope of operator RSS per 1,000 finished runs. */
function trend(s) {
  if (s.length < 2) return null;
  const mx = s.reduce((a, p) => a + p.finished, 0) / s.length;
  const my = s.reduce((a, p) => a + p.operatorMiB, 0) / s.length;
  const num = s.reduce((a, p) => a + (p.finished - mx) * (p.operatorMiB - my), 0);
  const den = s.reduce((a, p) => a + (p.finished - mx) ** 2, 0);
  return den ? Math.round(num / den * 1000 * 10) / 10 : null;
}

// ---------------------------------------------------------------------------------------------

function summary(o) {
  const f = results.figures;
  const line = (s) => console.log(s);
  line(`\noperator bench: ${results.machine.cpus} cores, ${results.machine.node}, commit ${results.machine.commit}${o.quick ? ' (--quick)' : ''}`);
  if (f.pod_start_watch_ms) {
    const w = f.pod_start_watch_ms;
    line(`Pod start (${w.pods} Pods, retention all), p50 / p99 ms: created->bound ${w.createToBound.p50} / ${w.createToBound.p99}, created->process start ${w.createToProcess.p50} / ${w.createToProcess.p99}, process end->Succeeded seen ${w.processEndToDone.p50} / ${w.processEndToDone.p99}, created->Succeeded seen ${w.createToDone.p50} / ${w.createToDone.p99}`);
    line(`  kubectl (1 s resolution): creationTimestamp->container startedAt p50 ${f.pod_start_kubectl_s.createdToStarted.p50} s, max ${f.pod_start_kubectl_s.createdToStarted.max} s`);
  }
  if (f.chain_latency_ms) {
    const c = f.chain_latency_ms;
    const pp = (d) => (d ? `${d.p50} / ${d.p99}` : '-');
    line(`chain ${c.steps} steps x ${c.runs} runs (${c.failed} failed), per gap p50 / p99 ms (target: beyond Pod start p50 < 250):`);
    line(`  beyond Pod start (process end -> next Pod created) ${pp(c.beyondPod)} = notice ${pp(c.notice)} + to create ${pp(c.toCreate)}`);
    line(`  Pod start (Pod created -> process start) ${pp(c.podStart)}; process to process ${pp(c.procToProc)}; node records' gap ${pp(c.recordGap)} (one decision stamps both)`);
    line(`  per step: node startedAt->process start ${pp(c.launch)}, process ${pp(c.run)}, whole step ${pp(c.step)}; run wall p50 ${c.runWall.p50} ms`);
  }
  const tputs = Object.keys(f).filter((k) => /^throughput(_\d+_dags)?$/.test(k));
  for (const k of tputs) {
    const t = f[k];
    line(`throughput, ${t.dags} DAG${t.dags > 1 ? 's' : ''}: ${t.runs} single-step runs (${t.failed} failed, ${t.clients} clients) in ${t.seconds} s: ${t.runsPerMinute} runs/min (target >= 1000; Argo default 270); starts ${t.startsPerMinute}/min; request->finish p50 ${t.requestToFinishMs.p50} ms, p99 ${t.requestToFinishMs.p99} ms`);
    line(`  per run p50 / p99 ms: ${Object.entries(t.breakdownMs).map(([n, d]) => `${n} ${d.p50} / ${d.p99}`).join(', ')}`);
  }
  for (const k of ['chain', ...tputs]) {
    const w = f[`${k}_writes`];
    if (!w) continue;
    line(`API writes per step, ${k} (${w.steps} steps, idle rate subtracted): ${w.perStep}`);
    for (const r of w.rows.filter((x) => x.perStep > 0)) line(`  ${r.key.padEnd(36)} ${String(r.perStep).padStart(6)}  (${r.total} in all, ~${r.background} idle)`);
  }
  for (const k of ['chain', ...tputs]) {
    const c = f[`${k}_cpu`];
    if (!c) continue;
    line(`CPU seconds, ${k} batch (${c.seconds} s wall x ${results.machine.cpus} cores = ${r1(c.seconds * results.machine.cpus)} CPU s): ${Object.entries(c.cpuSeconds).map(([n, v]) => `${n} ${v}`).join(', ')}`);
  }
  if (f.operator_memory) {
    const m = f.operator_memory;
    line(`operator RSS: ${m.samples.map((s) => `${s.finished} runs ${s.operatorMiB} MiB${s.afterGc ? ` (after GC: heap ${s.afterGc.heapUsedMiB}, rss ${s.afterGc.rssMiB})` : ''}`).join(', ')}; trend ${m.perThousandRunsMiB} MiB per 1,000 runs${m.stoppedEarly ? ` (stopped at the ${o.memMinutes}-minute limit)` : ''}`);
    line(`  sustained: ${m.sustainedRunsPerMinute} single-step runs/min with ${m.inflight} in flight over ${m.minutes} min; CPU s: ${Object.entries(m.cpu.cpuSeconds).map(([n, v]) => `${n} ${v}`).join(', ')}`);
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  // SVC_BENCH_COMMIT: the commit of a tree that is not a checkout (a `git archive` export benchmarked apart
  // from a working tree being edited).
  const git = (args) => spawnSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' });
  const commit = process.env.SVC_BENCH_COMMIT || git(['rev-parse', '--short', 'HEAD']).stdout?.trim() || 'unknown';
  const dirty = !process.env.SVC_BENCH_COMMIT && git(['status', '--porcelain', 'src']).stdout?.trim() !== '';
  Object.assign(results, { machine: { cpus: cpus().length, node: process.version, commit: `${commit}${dirty ? '+dirty src' : ''}`, date: new Date().toISOString(), loadavg: loadavg().map(r1) }, options: { ...o, skip: [...o.skip] } });
  if (results.machine.loadavg[0] > 1) console.error(`operator bench: load average ${results.machine.loadavg.join(' ')}: the machine is busy, figures will be noisy (see "not ours" CPU)`);
  if (!existsSync(join(ROOT, 'dist/image/usr/local/bin/svc-entry'))) throw new Error('no step entry binary: npm run build');
  const dataRoot = mkdtempSync(join(tmpdir(), 'svc-operator-bench-'));
  try {
    kube = testbedUp(o.dir);
    kubectl(['apply', '--server-side', '-f', join(ROOT, 'crds')]);
    // Right after the apply a CRD may have no status yet, and `kubectl wait` fails on it rather than waiting.
    await until('the CRDs to be established', () => { try { kubectl(['wait', '--for=condition=Established', 'crd/dags.svc.io', 'crd/dagruns.svc.io', '--timeout=10s']); return true; } catch { return false; } }, 60_000, 250);
    console.error(`operator bench: test bed up in ${o.dir}; data in ${dataRoot}`);
    if (!o.skip.has('pods')) await podsPhase(o, dataRoot);

    const inspectPort = o.memDetail ? await freePort() : undefined;
    const api = await startPair(NS, join(dataRoot, 'main'), o.operatorEnv, inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []);
    api.inspectPort = inspectPort;
    const samples = [await memSample(api, 0, Date.now())];
    let finished = 0;
    const idle = await idleRate(o.idleSeconds);
    figure('idle_writes_per_s', Object.fromEntries(Object.entries(idle).map(([k, v]) => [k, Math.round(v * 100) / 100])));
    if (!o.skip.has('chain')) finished += await chainPhase(o, api, idle);
    if (!o.skip.has('throughput')) finished += await throughputPhase(o, api, idle, 1);
    if (!o.skip.has('throughput') && o.spread > 1) finished += await throughputPhase(o, api, idle, o.spread);
    if (!o.skip.has('mem')) await memPhase(o, api, finished, samples);
    await stop(api.operator);
    await stop(api.server);
  } finally {
    cleanup();
    if (!o.keep) rmSync(dataRoot, { recursive: true, force: true });
  }
  summary(o);
  if (o.out) writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
}

main().catch((e) => { console.error(e); cleanup(); process.exit(1); });
