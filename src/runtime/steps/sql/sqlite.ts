/**
 * The `sqlite` step type: the step's SQL on a SQLite database (node:sqlite, built into Node), with the
 * same statements, parameters, transaction and output as postgres steps. node:sqlite runs a statement
 * synchronously and cannot interrupt it, and a worker thread cannot be stopped inside native code
 * either; so the statements run in a child Node process (sqlite-child.ts): the engine's event loop is
 * never blocked by a long query, and a stop or a timeout kills the process at once (SQLite's journal
 * undoes what an unfinished transaction wrote). Costs a Node start per step.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { required, StepError, type StepIO, type StepRunner } from '../runner.js';
import { Deadline } from './abort.js';
import { resultWriter, type ResultWriter } from './format.js';
import { sqlJob, statementName, type SqlJob } from './job.js';
import { SQLITE_CHILD } from './sqlite-child.js';

/** How long a statement waits for another connection's lock before failing (SQLITE_BUSY). */
const DEFAULT_BUSY_TIMEOUT_S = 5;

/**
 * The database node:sqlite opens: `:memory:`; a `file:` URI (its path made absolute against the
 * working directory, its query kept: `?mode=ro`...); or a path, relative to the working directory.
 */
export function sqliteLocation(dsn: string, workingDir: string): string {
  const d = dsn.trim();
  if (d === ':memory:') return d;
  if (!/^file:/i.test(d)) return isAbsolute(d) ? d : resolve(workingDir, d);
  const rest = d.slice(5);
  const q = rest.search(/[?#]/);
  const path = q < 0 ? rest : rest.slice(0, q);
  const query = q < 0 ? '' : rest.slice(q);
  // file:///abs and file://localhost/abs name an absolute path; file:rel and file:./rel a relative one.
  const local = path.startsWith('//') ? path.replace(/^\/\/[^/]*/, '') : path;
  if (local === ':memory:' || local === '') return d;
  let decoded = local;
  try {
    decoded = decodeURIComponent(local);
  } catch {
    throw new StepError('sqlite step: config.dsn is not a valid file: URI');
  }
  return `${pathToFileURL(resolve(workingDir, decoded)).href}${query}`;
}

/** node:sqlite binds integers exactly as BigInt, booleans as 1/0, structures as JSON text. */
function sqliteValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (typeof v === 'string' || typeof v === 'bigint' || v instanceof Uint8Array) return v;
  return JSON.stringify(v);
}

function busyTimeoutMs(config: Record<string, unknown>): number {
  const v = config.busyTimeout;
  if (v === undefined || v === null || v === '') return DEFAULT_BUSY_TIMEOUT_S * 1000;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new StepError('sqlite step: config.busyTimeout must be a number of seconds, 0 or more');
  return Math.round(n * 1000);
}

export const runSqlite: StepRunner = async ({ req, io, signal }) => {
  const location = sqliteLocation(required(req.config, 'dsn', 'sqlite'), req.workingDir);
  const job = await sqlJob(req, 'sqlite');
  const message = {
    location, busyTimeoutMs: busyTimeoutMs(req.config), transaction: job.transaction, maxRows: job.maxRows,
    statements: job.statements.map((s) => ({ sql: s.sql, values: s.values.map(sqliteValue) })),
  };
  const deadline = new Deadline('sqlite', signal, job.timeoutMs);
  const child = spawn(process.execPath, ['--no-warnings', '-e', SQLITE_CHILD], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced', env: {}, cwd: req.workingDir,
  });
  deadline.onAbort(() => child.kill('SIGKILL'));
  try {
    await deadline.cut(converse(child, message, new Conversation(job, io, location)));
  } finally {
    deadline.dispose();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  return { exitCode: 0 };
};

type ChildMessage =
  | { t: 'cols'; i: number; names: string[] }
  | { t: 'rows'; i: number; rows: unknown[][] }
  | { t: 'done'; i: number; changes?: number | bigint; rows?: number; more?: boolean }
  | { t: 'error'; i: number; message: string; rolledBack: boolean }
  | { t: 'end' };

/** What the child reports, turned into the step's output and its error. */
class Conversation {
  private readonly writer: ResultWriter;
  private begun = false;
  private started = performance.now();

  constructor(private readonly job: SqlJob, private readonly io: StepIO, private readonly location: string) {
    this.writer = resultWriter(job.output, io.out);
  }

  /** Handles one message; returns true when the child has finished well. */
  handle(m: ChildMessage): boolean {
    switch (m.t) {
      case 'cols': this.writer.begin(m.names); this.begun = true; return false;
      case 'rows': for (const r of m.rows) this.writer.row(r); return false;
      case 'done': this.done(m); return false;
      case 'error': throw this.failure(m);
      case 'end': return true;
    }
  }

  private done(m: Extract<ChildMessage, { t: 'done' }>): void {
    if (this.begun) this.writer.end();
    this.begun = false;
    const ms = Math.round(performance.now() - this.started);
    this.started = performance.now();
    const what = m.changes !== undefined ? `${m.changes} rows changed` : m.more ? `${m.rows} rows (maxRows ${this.job.maxRows}; more were left unread)` : `${m.rows} rows`;
    this.io.err(`statement ${m.i + 1}/${this.job.statements.length}: ${what} (${ms} ms)\n`);
  }

  private failure(m: Extract<ChildMessage, { t: 'error' }>): StepError {
    if (m.rolledBack) this.io.err('transaction rolled back\n');
    const stmt = this.job.statements[m.i];
    if (!stmt) return new StepError(`sqlite step: ${m.i === -1 && this.job.transaction ? 'transaction' : `cannot open ${this.location}`}: ${m.message}`);
    return new StepError(`sqlite step: ${statementName(this.job, stmt)} (line ${lineOf(this.job.source, stmt.offset)}) failed: ${m.message}`);
  }
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** Sends the job; resolves when the child reports the end, rejects with its error or when it dies. */
function converse(child: ChildProcess, job: unknown, talk: Conversation): Promise<void> {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  return new Promise<void>((ok, fail) => {
    let finished = false;
    child.on('message', (m: ChildMessage) => {
      if (finished) return;
      try {
        finished = talk.handle(m);
        if (finished) ok();
      } catch (e) {
        finished = true;
        fail(e);
      }
    });
    child.on('error', (e) => fail(new StepError(`sqlite step: cannot start the SQLite process: ${e.message}`)));
    // Messages come before the channel's disconnect: an end without 'end' is known once both are seen.
    let exit: string | undefined;
    let disconnected = false;
    const died = (): void => {
      if (finished || exit === undefined || !disconnected) return;
      fail(new StepError(`sqlite step: the SQLite process ended (${exit}) before it finished${stderr.trim() ? `: ${stderr.trim()}` : ''}`));
    };
    child.on('exit', (code, sig) => { exit = sig ?? `exit ${code}`; died(); });
    child.on('disconnect', () => { disconnected = true; died(); });
    child.send(job as object);
  });
}
