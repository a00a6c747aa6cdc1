#!/usr/bin/env node
// Plan benchmark (issue 20, item 15): `svc validate` and `svc dry` on long chains.
//
//   node hack/bench/dry.mjs [--steps 20000,5000] [--runs 3] [--svc-alt path/to/other/bin/svc.js] [--out f.json]
//
// For each size a chain of `command: "true"` steps, each depending on the one before (written out, as in
// engine.mjs), is generated in a temp dir; `node bin/svc.js validate` and `dry` run on it --runs times
// (stdout discarded, exit code checked) and the median wall time is printed. --svc-alt runs another build
// the same way, interleaved, to A/B a change. Nothing runs user code. Figures, not assertions: no test
// runs this. See hack/bench/README.md. svc itself must be built (`npm run build`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function parseArgs(argv) {
  const o = { steps: [20000, 5000], runs: 3, svcAlt: undefined, out: undefined };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split('=');
    const val = () => inline ?? argv[++i] ?? die(`${name} needs a value`);
    switch (name) {
      case '--steps': o.steps = val().split(',').map((s) => posInt(s, name)); break;
      case '--runs': o.runs = posInt(val(), name); break;
      case '--svc-alt': o.svcAlt = resolve(val()); if (!existsSync(o.svcAlt)) die(`--svc-alt: no such file ${o.svcAlt}`); break;
      case '--out': o.out = resolve(val()); break;
      default: die(`unknown argument ${argv[i]}`);
    }
  }
  return o;
}
function posInt(v, n) { const x = Number(v); if (!Number.isInteger(x) || x < 1) die(`${n} must be positive integers`); return x; }
function die(msg) { console.error(`bench: ${msg}`); process.exit(2); }

function chainYaml(n) {
  const lines = ['name: bench-chain', 'type: graph', 'steps:'];
  for (let i = 1; i <= n; i++) lines.push(`  - name: s${i}`, '    command: "true"', ...(i > 1 ? [`    depends: s${i - 1}`] : []));
  return `${lines.join('\n')}\n`;
}

/** Wall time of one command in ms; throws when it fails. */
function timed(bin, command, file) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, command, file], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${bin} ${command} exited ${r.status ?? r.signal}: ${r.stderr.trim().slice(-500)}`);
  return ms;
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

function main() {
  const o = parseArgs(process.argv.slice(2));
  const systems = { svc: join(ROOT, 'bin/svc.js'), ...(o.svcAlt ? { 'svc-alt': o.svcAlt } : {}) };
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-dry-'));
  const results = [];
  try {
    for (const n of o.steps) {
      const file = join(dir, `chain-${n}.yaml`);
      writeFileSync(file, chainYaml(n));
      for (const command of ['validate', 'dry']) {
        const samples = Object.fromEntries(Object.keys(systems).map((s) => [s, []]));
        for (let run = 0; run < o.runs; run++) for (const [s, bin] of Object.entries(systems)) samples[s].push(timed(bin, command, file));
        for (const [s, xs] of Object.entries(samples)) {
          results.push({ steps: n, command, system: s, samplesMs: xs, medianMs: median(xs) });
          console.log(`${String(n).padStart(6)} steps  ${command.padEnd(8)} ${s.padEnd(8)} ${(median(xs) / 1000).toFixed(2)} s (median of ${xs.length})`);
        }
      }
    }
  } finally { rmSync(dir, { recursive: true, force: true }); }
  if (o.out) writeFileSync(o.out, `${JSON.stringify({ node: process.version, date: new Date().toISOString(), results }, null, 2)}\n`);
}

main();
