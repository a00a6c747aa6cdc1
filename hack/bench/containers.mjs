#!/usr/bin/env node
// Container steps benchmark (issue 23, item 1): a DAG of 20 short steps run three ways by `svc start`:
// as shell steps, inside one run-scoped container (a DAG-level `container`), and each step in a container
// of its own (a step-level `container`). Figures, not assertions; see docs/containers.md.
//
//   node hack/bench/containers.mjs [--runs 5] [--steps 20] [--image IMAGE] [--out f.json]
//
// The engine: DOCKER_HOST (with --image an image it has), else a Podman API service this script starts on
// storage of its own, with the tests' busybox-static image (Debian podman, runc, busybox-static).
// svc must be built (`npm run build`, or `npx tsc -p tsconfig.json`).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(arg('runs', '5'));
const STEPS = Number(arg('steps', '20'));
const IMAGE = arg('image', 'localhost/svc-bench-busybox:1');
const OUT = arg('out', undefined);

const steps = (indent = '') => Array.from({ length: STEPS }, (_, i) => `${indent}  - name: s${i}\n${indent}    command: echo step ${i}`).join('\n');
const SCENARIOS = {
  shell: `steps:\n${steps()}\n`,
  'run-container': `container:\n  image: ${IMAGE}\n  pullPolicy: never\nsteps:\n${steps()}\n`,
  'step-containers': `steps:\n${Array.from({ length: STEPS }, (_, i) => `  - name: s${i}\n    container:\n      image: ${IMAGE}\n      pullPolicy: never\n    command: echo step ${i}`).join('\n')}\n`,
};

/** The busybox-static test image, as the container tests build it (test/helpers/podman.ts), in `env`'s storage. */
function importImage(env) {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-rootfs-'));
  for (const d of ['bin', 'tmp', 'etc']) mkdirSync(join(root, d));
  chmodSync(root, 0o755);
  chmodSync(join(root, 'tmp'), 0o1777);
  const busybox = ['/bin/busybox', '/usr/bin/busybox'].find((p) => existsSync(p));
  if (!busybox) throw new Error('no busybox: apt-get install busybox-static');
  copyFileSync(busybox, join(root, 'bin', 'busybox'));
  for (const a of execFileSync(busybox, ['--list'], { encoding: 'utf8' }).split('\n').filter((x) => x && x !== 'busybox')) symlinkSync('busybox', join(root, 'bin', a));
  const tar = spawnSync('tar', ['-C', root, '-cf', '-', '.'], { maxBuffer: 64 << 20 });
  const imp = spawnSync('podman', ['import', '--change', 'ENV PATH=/bin', '-', IMAGE], { env, input: tar.stdout, encoding: 'utf8' });
  rmSync(root, { recursive: true, force: true });
  if (imp.status !== 0) throw new Error(`podman import: ${imp.stderr}`);
}

/** DOCKER_HOST as given, else a Podman API service on storage of its own (as the tests configure it), removed after. */
async function podmanService() {
  if (process.env.DOCKER_HOST) return { host: process.env.DOCKER_HOST, stop: async () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-podman-'));
  writeFileSync(join(dir, 'containers.conf'), '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]\nlog_driver = "k8s-file"\nnetns = "none"\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\nexit_command_delay = 10\n');
  writeFileSync(join(dir, 'storage.conf'), `[storage]\ndriver = "vfs"\nrunroot = "${join(dir, 'run')}"\ngraphroot = "${join(dir, 'root')}"\n`);
  const env = { ...process.env, CONTAINERS_CONF: join(dir, 'containers.conf'), CONTAINERS_STORAGE_CONF: join(dir, 'storage.conf') };
  importImage(env);
  const sock = join(dir, 'podman.sock');
  const proc = spawn('podman', ['system', 'service', '--time=0', `unix://${sock}`], { env, stdio: 'ignore' });
  for (let i = 0; i < 300 && !existsSync(sock); i++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300));
  return {
    host: `unix://${sock}`,
    stop: async () => {
      spawnSync('podman', ['rm', '--all', '--force', '--time', '0'], { env });
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One `svc start` of the scenario: wall time of the command, and the run's own start-to-finish time. */
function runOnce(name, yaml, dockerHost) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-containers-'));
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, SVC_DATA_DIR: join(dir, 'data'), SVC_DAGS_DIR: dir, DOCKER_HOST: dockerHost };
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'svc.js'), 'start', file], { env, encoding: 'utf8' });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${name}: svc start exited ${r.status}: ${r.stderr}`);
  const runDir = join(dir, 'data', 'runs', name);
  const id = readdirSync(runDir)[0];
  const status = JSON.parse(readFileSync(join(runDir, id, 'status.json'), 'utf8'));
  const run = status.status?.run ?? status.run ?? status;
  const runMs = Date.parse(run.finishedAt) - Date.parse(run.startedAt);
  rmSync(dir, { recursive: true, force: true });
  return { wallMs, runMs };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const engine = await podmanService();
const results = {};
try {
  for (const name of Object.keys(SCENARIOS)) runOnce(name, SCENARIOS[name], engine.host); // warm-up
  for (let i = 0; i < RUNS; i++) {
    for (const [name, yaml] of Object.entries(SCENARIOS)) (results[name] ??= []).push(runOnce(name, yaml, engine.host));
  }
} finally {
  await engine.stop();
}
console.log(`${STEPS} steps, ${RUNS} runs each (interleaved), ${cpus().length} cores, Node ${process.version}, engine ${process.env.DOCKER_HOST ?? 'podman (vfs storage of its own)'}`);
console.log('| scenario | svc start, median (min) | run start to finish, median (min) |');
console.log('|---|---|---|');
for (const [name, rs] of Object.entries(results)) {
  const w = rs.map((r) => r.wallMs);
  const t = rs.map((r) => r.runMs);
  console.log(`| ${name} | ${(median(w) / 1000).toFixed(2)} s (${(Math.min(...w) / 1000).toFixed(2)}) | ${(median(t) / 1000).toFixed(2)} s (${(Math.min(...t) / 1000).toFixed(2)}) |`);
}
if (OUT) writeFileSync(OUT, JSON.stringify({ steps: STEPS, runs: RUNS, results }, null, 2));
