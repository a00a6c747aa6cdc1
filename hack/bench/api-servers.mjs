// Servers of the API bench (hack/bench/api.mjs): the reference binary, free loopback ports, starting and
// stopping svc and Dagu as server processes, and a small JSON HTTP client. Plain ESM.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const START_TIMEOUT_MS = 60_000;

export function findDagu() {
  if (process.env.DAGU_BIN) return existsSync(process.env.DAGU_BIN) ? process.env.DAGU_BIN : undefined;
  try {
    const bin = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('@dagu-org/dagu-linux-x64/package.json')), 'bin', 'dagu');
    if (existsSync(bin)) return bin;
  } catch { /* not installed */ }
  const which = spawnSync('sh', ['-c', 'command -v dagu'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

export function versionOf(bin) {
  const r = spawnSync(bin, ['version'], { encoding: 'utf8' });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n')[0] || 'unknown';
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Systems: each a server process on a free loopback port; `detail(body)` reads the run status.
const SYSTEM_DEFS = {
  svc: {
    command: () => [process.execPath, [join(ROOT, 'bin/svc.js'), 'server']],
    // SVC_BENCH_NODE_OPTIONS (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof): node options of the svc server only.
    env: (dir, port, dagsDir) => ({
      SVC_DATA_DIR: join(dir, 'svc-data'), SVC_DAGS_DIR: dagsDir, SVC_HOST: '127.0.0.1', SVC_PORT: String(port), SVC_LOG_LEVEL: 'warn',
      ...(process.env.SVC_BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SVC_BENCH_NODE_OPTIONS } : {}),
    }),
    status: (body) => body?.dagRun?.status,
  },
  dagu: {
    command: (bin) => [bin, ['start-all']],
    env: (dir, port, dagsDir) => ({ DAGU_HOME: join(dir, 'dagu-home'), DAGU_DAGS_DIR: dagsDir, DAGU_HOST: '127.0.0.1', DAGU_PORT: String(port), DAGU_SKIP_EXAMPLES: 'true' }),
    status: (body) => body?.dagRunDetails?.status,
  },
};

/** Every server process still alive (killed on Ctrl-C). */
export const children = new Set();

export async function startSystem(name, dir, dagsDir, daguBin) {
  const def = SYSTEM_DEFS[name];
  const port = await freePort();
  const [cmd, args] = def.command(daguBin);
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, SHELL: process.env.SHELL ?? '/bin/sh', LANG: process.env.LANG ?? 'C.UTF-8', ...def.env(dir, port, dagsDir) };
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const base = `http://127.0.0.1:${port}/api/v2`;
  const end = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${stderr}`);
    const r = await http('GET', `${base}/health`).catch(() => undefined);
    if (r?.status === 200) return { name, base, child, status: def.status, stderr: () => stderr };
    await sleep(100);
  }
  throw new Error(`${name} did not answer /health within ${START_TIMEOUT_MS / 1000}s: ${stderr}`);
}

export async function stopSystem(sys) {
  if (sys.child.exitCode !== null) return;
  sys.child.kill('SIGTERM');
  for (let i = 0; i < 100 && sys.child.exitCode === null; i++) await sleep(50);
  if (sys.child.exitCode === null) sys.child.kill('SIGKILL');
}

export async function http(method, url, body) {
  const init = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['content-type'] = 'application/json';
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let json;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
  return { status: res.status, body: json, text };
}

export async function must(method, url, body) {
  const r = await http(method, url, body);
  if (r.status !== 200) throw new Error(`${method} ${url} answered ${r.status}: ${r.text.slice(0, 300)}`);
  return r.body;
}
