/**
 * The differential harness of issue 19: one DAG file run to its end by the reference binary (Dagu
 * 1.30.2, `dagu start`) and by svc (`svc start`, the CLI a user runs), each in a fresh home with the
 * same DAG files and the same small environment, then both runs read back as an Outcome: run status,
 * each step's status, stdout and stderr, outputs.json, doneCount and retryCount. Paths of the two homes
 * are replaced by placeholders, so a case may print them.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BIN, ROOT } from '../helpers/cli.js';

export interface ParityCase {
  name: string;
  /** The DAG file (case.yaml in the DAGs directory). */
  dag: string;
  /** `--params` of the start. */
  params?: string;
  /** Variables of the starting process, besides PATH, HOME, LANG and TZ. */
  env?: Record<string, string>;
  /** More files, relative to the DAGs directory (sub-DAGs, dotenv files, scripts). */
  files?: Record<string, string>;
  /** What is compared (default: all). */
  compare?: Aspect[];
  /** A deliberate difference: the ADR that argues svc is right; only `compare` is compared. */
  differs?: string;
  /** A divergence not fixed yet (why): the case asserts the outcomes still differ. */
  pending?: string;
  /** Only these steps' stdout and stderr are compared (default: every step's). */
  stdoutOf?: string[];
  /** What svc must show besides (for a deliberate difference: its own behaviour). */
  svc?: Partial<Outcome>;
}

export type Aspect = 'status' | 'steps' | 'stdout' | 'stderr' | 'outputs' | 'counters';
export const ASPECTS: Aspect[] = ['status', 'steps', 'stdout', 'stderr', 'outputs', 'counters'];

export interface Outcome {
  status: number;
  steps: Record<string, number>;
  stdout: Record<string, string>;
  stderr: Record<string, string>;
  outputs: Record<string, string>;
  counters: Record<string, { done: number; retries: number }>;
}

const RUN_TIMEOUT_MS = 60_000;

export function findDagu(): string | undefined {
  if (process.env.DAGU_BIN) return existsSync(process.env.DAGU_BIN) ? process.env.DAGU_BIN : undefined;
  try {
    const pkg = createRequire(join(ROOT, 'package.json')).resolve('@dagu-org/dagu-linux-x64/package.json');
    const bin = join(dirname(pkg), 'bin', 'dagu');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** A child process to its end (killed after the bound); its output, for the failure message. */
function exec(cmd: string, args: string[], env: Record<string, string>, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out = (out + d).slice(-8000); });
    child.stderr.on('data', (d) => { out = (out + d).slice(-8000); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${cmd} ${args.join(' ')} did not end within ${RUN_TIMEOUT_MS / 1000}s: ${out}`)); }, RUN_TIMEOUT_MS);
    child.on('close', () => { clearTimeout(timer); resolve(out); });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

function home(c: ParityCase, system: string): { root: string; dags: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), `parity-${system}-`));
  const dags = join(root, 'dags');
  mkdirSync(dags);
  for (const [rel, text] of Object.entries(c.files ?? {})) {
    mkdirSync(dirname(join(dags, rel)), { recursive: true });
    writeFileSync(join(dags, rel), text);
  }
  const file = join(dags, 'case.yaml');
  writeFileSync(file, c.dag);
  return { root, dags, file };
}

const baseEnv = (c: ParityCase): Record<string, string> => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8', TZ: 'UTC', ...c.env });

const readText = (path: string | undefined): string => (path && existsSync(path) ? readFileSync(path, 'utf8').trimEnd() : '');

/** The two homes' paths and run ids (random on both sides) as placeholders. */
const placeholders = (text: string, root: string): string => text.split(root).join('<HOME>').replace(/("dagRunId":\s*")[^"]+"/g, '$1<ID>"');

/** Every file called `name` under dir (the reference nests its run directories by date). */
function findFiles(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(`/${name}`) || f === name).map((f) => join(dir, f)).sort();
}

interface RawNode { step: { name: string }; status: number; stdout?: string; stderr?: string; doneCount?: number; retryCount?: number }

/**
 * Both systems put a handler's node beside `nodes`, under a key of its own, for each handler the DAG
 * defines (run or not): svc under `onInit`, `onSuccess`, `onFailure`, `onAbort`, `onWait` and `onExit`;
 * the reference under the same keys except the abort handler's, `onCancel`.
 */
export const HANDLER_KEYS: Record<string, string> = {
  onInit: 'onInit', onSuccess: 'onSuccess', onFailure: 'onFailure', onAbort: 'onAbort', onCancel: 'onAbort', onWait: 'onWait', onExit: 'onExit',
};

/** A run's status record as both systems write it: nodes, and handler nodes under their own keys. */
type RawRun = { status: number; nodes?: RawNode[] } & Record<string, unknown>;

const isNode = (v: unknown): v is RawNode => typeof v === 'object' && v !== null && 'status' in v && 'step' in v;

/**
 * The run's outcome. A handler appears as a step called `handler:<svc's key>`: its status and streams
 * (its counters are not compared).
 */
function outcome(run: RawRun, outputsFile: string | undefined, root: string): Outcome {
  const o: Outcome = { status: run.status, steps: {}, stdout: {}, stderr: {}, outputs: {}, counters: {} };
  const record = (name: string, n: RawNode): void => {
    o.steps[name] = n.status;
    o.stdout[name] = placeholders(readText(n.stdout), root);
    o.stderr[name] = placeholders(readText(n.stderr), root);
  };
  for (const n of run.nodes ?? []) {
    record(n.step.name, n);
    o.counters[n.step.name] = { done: n.doneCount ?? 0, retries: n.retryCount ?? 0 };
  }
  for (const [key, name] of Object.entries(HANDLER_KEYS)) {
    const h = run[key];
    if (isNode(h)) record(`handler:${name}`, h);
  }
  const outputs = outputsFile && existsSync(outputsFile) ? JSON.parse(readFileSync(outputsFile, 'utf8')).outputs ?? {} : {};
  for (const [k, v] of Object.entries(outputs)) o.outputs[k] = placeholders(String(v), root);
  return o;
}

const lastRecord = (file: string): RawRun => JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1)!) as RawRun;

/**
 * The reference's last status record. Rarely (under load) its final record lands just after `dagu start`
 * has exited and the one read is still `running`: read again for a few seconds.
 */
async function finalRecord(file: string): Promise<RawRun> {
  let run = lastRecord(file);
  for (let waited = 0; run.status === 1 && waited < 5000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    run = lastRecord(file);
  }
  return run;
}

export async function runDagu(c: ParityCase, bin: string): Promise<Outcome> {
  const h = home(c, 'dagu');
  try {
    const env = { ...baseEnv(c), DAGU_HOME: join(h.root, 'home'), DAGU_DAGS_DIR: h.dags };
    const log = await exec(bin, ['start', ...(c.params !== undefined ? [`--params=${c.params}`] : []), h.file], env, h.root);
    // The root run's status (a sub-DAG run's lies under its parent's children/).
    const statusFile = findFiles(join(h.root, 'home', 'data', 'dag-runs', 'case'), 'status.jsonl').filter((f) => !f.includes('/children/')).at(-1);
    if (!statusFile) throw new Error(`the reference left no status: ${log}`);
    return outcome(await finalRecord(statusFile), join(dirname(statusFile), 'outputs.json'), h.root);
  } finally {
    rmSync(h.root, { recursive: true, force: true });
  }
}

export async function runSvc(c: ParityCase): Promise<Outcome> {
  const h = home(c, 'svc');
  try {
    const env = { ...baseEnv(c), SVC_DATA_DIR: join(h.root, 'data'), SVC_DAGS_DIR: h.dags, SHELL: '/bin/sh' };
    const log = await exec(process.execPath, [BIN, 'start', h.file, ...(c.params !== undefined ? ['--params', c.params] : [])], env, h.root);
    const statusOut = await exec(process.execPath, [BIN, 'status', 'case', '--json'], env, h.root);
    let run: RawRun & { log: string };
    try {
      run = JSON.parse(statusOut).dagRun;
    } catch {
      throw new Error(`svc left no status: ${log}\n${statusOut}`);
    }
    return outcome(run, join(dirname(run.log), 'outputs.json'), h.root);
  } finally {
    rmSync(h.root, { recursive: true, force: true });
  }
}

/** The aspects of an outcome a case compares (the streams of `stdoutOf` steps only, when given). */
export function view(o: Outcome, aspects: Aspect[], stdoutOf?: string[]): Partial<Outcome> {
  const only = (m: Record<string, string>) => (stdoutOf ? Object.fromEntries(stdoutOf.map((s) => [s, m[s] ?? ''])) : m);
  return Object.fromEntries(aspects.map((a) => [a, a === 'stdout' || a === 'stderr' ? only(o[a]) : o[a]]));
}
