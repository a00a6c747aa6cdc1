#!/usr/bin/env node
// Kubernetes backend benchmark (issue 16): `svc server --backend kubernetes` over a real API server (the
// test bed) next to the embedded backend, same DAGs and runs, measured in one run:
//   GET /dags with --dags Dags (default page and perPage=1000), GET /dag-runs with --runs DagRuns (all,
//   by name, pages of 100), p50 / p99 latency of --requests sequential requests each.
//
//   node hack/bench/kube.mjs [--dags 1000] [--runs 5000] [--requests 50] [--out results.json] [--keep]
//
// Needs the test bed binaries (hack/testbed.d/build.sh) and `npm run build`. Plain ESM.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, must, sleep } from './api-servers.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (p) => import(join(ROOT, 'dist', p));

function parseArgs(argv) {
  const o = { dags: 1000, runs: 5000, requests: 50, out: undefined, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split('=');
    const val = () => inline ?? argv[++i];
    if (name === '--dags' || name === '--runs' || name === '--requests') o[name.slice(2)] = Number(val());
    else if (name === '--out') o.out = resolve(val());
    else if (name === '--keep') o.keep = true;
    else { console.error(`kube bench: unknown argument ${argv[i]}`); process.exit(2); }
  }
  return o;
}

const dagText = (i) => `description: filler ${i}\ntags: "team=t${i % 10}"\nparams:\n  - WHO: world\nsteps:\n  - name: a\n    command: echo $WHO\n  - name: b\n    command: echo b\n`;

/** Runs `fn` over 0..n-1, `width` at a time. */
async function pool(n, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < n) await fn(next++); }));
}

function testbedUp(dir) {
  const check = spawnSync('bash', [join(ROOT, 'hack/testbed.d/build.sh'), '--check'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error('the test bed binaries are not built: bash hack/testbed.d/build.sh');
  const out = execFileSync('bash', [join(ROOT, 'hack/testbed'), 'up', '--dir', dir, '--json'], { encoding: 'utf8', env: { ...process.env, SVC_TESTBED_BIN: check.stdout.trim() } });
  return JSON.parse(out.trim().split('\n').pop());
}

async function fill({ dags, runs }, stores) {
  const { makeRun } = await dist('adapters/store/conformance.js');
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  await pool(dags, 25, (i) => stores.dags.write(`dag-${String(i).padStart(4, '0')}`, dagText(i)));
  // Finished runs (history), as a busy installation keeps them: nothing for a server to take over.
  await pool(runs, 25, (i) => {
    const run = makeRun({ dagName: `dag-${String(i % dags).padStart(4, '0')}`, dagRunId: `r${i}`, creationTimestamp: new Date(t0 + i * 1000).toISOString(), tags: [{ key: 'team', value: `t${(i % dags) % 10}` }] });
    const at = (s) => new Date(t0 + i * 1000 + s * 1000).toISOString();
    run.status.run = { ...run.status.run, status: 4, stage: 'done', startedAt: at(1), finishedAt: at(2), nodes: run.status.run.nodes.map((n) => ({ ...n, status: 4, startedAt: at(1), finishedAt: at(2), attempt: 1 })) };
    return stores.runs.create(run);
  });
}

async function serve(env) {
  const port = await freePort();
  const proc = spawn(process.execPath, [join(ROOT, 'bin/svc.js'), 'server'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_HOST: '127.0.0.1', SVC_PORT: String(port), SVC_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = `http://127.0.0.1:${port}/api/v2`;
  for (let i = 0; i < 600; i++) {
    try { if ((await fetch(`${url}/health`)).ok) return { url, proc }; } catch { /* not yet */ }
    await sleep(100);
  }
  proc.kill('SIGKILL');
  throw new Error('the server did not answer in 60 s');
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };

async function measure(url, path, n, check) {
  await must('GET', `${url}${path}`); // warm: caches synced, JIT
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const body = await must('GET', `${url}${path}`);
    ms.push(performance.now() - t);
    if (i === 0) check(body);
  }
  return { p50: +pct(ms, 50).toFixed(2), p99: +pct(ms, 99).toFixed(2) };
}

const SCENARIOS = (o) => [
  ['GET /dags (page of 50)', '/dags', (b) => { if (b.pagination.totalRecords !== o.dags) throw new Error(`expected ${o.dags} DAGs, got ${b.pagination.totalRecords}`); }],
  ['GET /dags?perPage=1000', '/dags?perPage=1000', () => undefined],
  ['GET /dag-runs', '/dag-runs', (b) => { if (!Array.isArray(b.dagRuns) || b.dagRuns.length === 0) throw new Error('no runs listed'); }],
  ['GET /dag-runs?name=dag-0001', '/dag-runs?name=dag-0001', () => undefined],
  // Pages (issue 20, item 13): the embedded run index, the kubernetes watch cache.
  ['GET /dag-runs?limit=100', '/dag-runs?limit=100', (b) => { if (b.dagRuns.length !== 100 || !b.nextCursor) throw new Error('expected a page of 100 and a nextCursor'); }],
  ['GET /dag-runs?tags=team=t3&limit=100', '/dag-runs?tags=team=t3&limit=100', (b) => { if (b.dagRuns.length !== 100) throw new Error('expected a page of 100'); }],
];

async function bench(name, env, o) {
  const server = await serve(env);
  try {
    const out = {};
    for (const [label, path, check] of SCENARIOS(o)) out[label] = await measure(server.url, path, o.requests, check);
    return out;
  } finally {
    server.proc.kill('SIGTERM');
    await new Promise((r) => server.proc.once('exit', r));
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'svc-kube-bench-'));
  const tb = join(dir, 'testbed');
  mkdirSync(tb);
  const results = { machine: { cpus: cpus().length, node: process.version }, options: o, backends: {} };
  try {
    // Embedded: DAG files and local run directories.
    const dataDir = join(dir, 'data');
    const dagsDir = join(dir, 'dags');
    mkdirSync(dagsDir, { recursive: true });
    const { LocalRunStore } = await dist('adapters/store/local/run-store.js');
    const files = { write: async (f, text) => writeFileSync(join(dagsDir, `${f}.yaml`), text) };
    let t = performance.now();
    await fill(o, { dags: files, runs: new LocalRunStore({ dataDir }) });
    console.log(`embedded: ${o.dags} DAG files and ${o.runs} runs in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    results.backends.embedded = await bench('embedded', { SVC_DATA_DIR: dataDir, SVC_DAGS_DIR: dagsDir }, o);

    // Kubernetes: Dag and DagRun resources on the test bed's API server.
    const state = testbedUp(tb);
    execFileSync(join(state.bin, 'kubectl'), ['--kubeconfig', state.kubeconfig, 'apply', '--server-side', '-f', join(ROOT, 'crds')], { stdio: 'ignore' });
    execFileSync(join(state.bin, 'kubectl'), ['--kubeconfig', state.kubeconfig, 'wait', '--for=condition=Established', 'crd/dags.svc.io', 'crd/dagruns.svc.io', '--timeout=60s'], { stdio: 'ignore' });
    const { loadKubeConfig } = await dist('adapters/kube/client.js');
    const { KubeDagStore } = await dist('adapters/kube/dag-store.js');
    const { KubeRunStore } = await dist('adapters/kube/run-store.js');
    const kc = loadKubeConfig(state.kubeconfig);
    const stores = { dags: new KubeDagStore(kc, 'default'), runs: new KubeRunStore(kc, 'default') };
    t = performance.now();
    await fill(o, stores);
    console.log(`kubernetes: ${o.dags} Dags and ${o.runs} DagRuns in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    await stores.dags.close();
    await stores.runs.close();
    results.backends.kubernetes = await bench('kubernetes', { SVC_BACKEND: 'kubernetes', SVC_NAMESPACE: 'default', SVC_KUBECONFIG: state.kubeconfig, SVC_DATA_DIR: join(dir, 'kube-data') }, o);
  } finally {
    spawnSync('bash', [join(ROOT, 'hack/testbed'), 'down', '--dir', tb], { stdio: 'ignore' });
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nscenario                        embedded p50 / p99 (ms)   kubernetes p50 / p99 (ms)`);
  for (const [label] of SCENARIOS(o)) {
    const e = results.backends.embedded[label];
    const k = results.backends.kubernetes[label];
    console.log(`${label.padEnd(32)}${`${e.p50} / ${e.p99}`.padEnd(26)}${k.p50} / ${k.p99}`);
  }
  if (o.out) writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
}

main().catch((e) => { console.error(e); process.exit(1); });
