/**
 * The `postgres` step type: runs the step's SQL on one connection (the `pg` driver), statement by
 * statement (inside one transaction with `transaction: true`), and writes the rows of every statement
 * that returns rows to stdout (format.ts), a summary line per statement to stderr. Parameters are
 * bound by the driver ($n), never written into the SQL. On a stop or a timeout the server is told to
 * cancel the running statement (a cancel request, as psql's Ctrl-C sends) and the connection is
 * closed at once, so nothing runs on after the step ended. The DSN's password is masked everywhere.
 */
import { connect as netConnect } from 'node:net';
import pg from 'pg';
import { maskSecrets } from '../../../core/vars/mask.js';
import { required, StepError, text, type StepIO, type StepRunner } from '../runner.js';
import { Deadline } from './abort.js';
import { resultWriter, type ResultWriter } from './format.js';
import { sourcePosition, sqlJob, statementName, type SqlJob, type SqlStatement } from './job.js';
import { parseDsn, type PgTarget } from './pg-dsn.js';
import { PG_TYPES } from './pg-values.js';

/** A DSN without connect_timeout still gives up on a server that never answers. */
const CONNECT_TIMEOUT_MS = 30_000;

export const runPostgres: StepRunner = async ({ req, io: raw, signal }) => {
  const target = parseDsn(required(req.config, 'dsn', 'postgres'));
  const io = masked(raw, target.secrets);
  const job = await sqlJob(req, 'postgres');
  const lock = text(req.config, 'advisoryLock');
  const deadline = new Deadline('postgres', signal, job.timeoutMs);
  const client = new pg.Client({ connectionString: target.connectionString, types: PG_TYPES, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // Errors of a connection already given up on (a stop) arrive here: they are the step's no longer.
  client.on('error', () => undefined);
  client.on('notice', (n) => io.err(`${n.severity ?? 'NOTICE'}: ${n.message}\n`));
  deadline.onAbort(() => { cancelBackend(client); client.connection.stream.destroy(); });
  try {
    await connect(client, target, deadline);
    if (lock) await deadline.cut(client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lock]));
    await runAll(client, job, deadline, io);
  } catch (e) {
    throw e instanceof StepError ? new StepError(maskSecrets(e.message, target.secrets)) : new StepError(maskSecrets(`postgres step: ${errorText(e)}`, target.secrets));
  } finally {
    deadline.dispose();
    client.end().catch(() => undefined);
  }
  return { exitCode: 0 };
};

/** The step's stdout and stderr with the DSN's password masked (the engine masks declared secrets). */
function masked(io: StepIO, secrets: string[]): StepIO {
  if (secrets.length === 0) return io;
  return { out: (t) => io.out(maskSecrets(t, secrets)), err: (t) => io.err(maskSecrets(t, secrets)) };
}

async function connect(client: pg.Client, target: PgTarget, deadline: Deadline): Promise<void> {
  try {
    await deadline.cut(client.connect());
  } catch (e) {
    if (e instanceof StepError) throw e;
    throw new StepError(`postgres step: cannot connect to ${target.label}: ${errorText(e)}`);
  }
}

async function runAll(client: pg.Client, job: SqlJob, deadline: Deadline, io: StepIO): Promise<void> {
  const writer = resultWriter(job.output, io.out);
  if (!job.transaction) {
    for (const stmt of job.statements) await runOne(client, job, stmt, { writer, deadline, io });
    return;
  }
  await deadline.cut(client.query(`BEGIN${job.isolation ? ` ISOLATION LEVEL ${job.isolation}` : ''}`));
  try {
    for (const stmt of job.statements) await runOne(client, job, stmt, { writer, deadline, io });
  } catch (e) {
    if (!deadline.signal.aborted) {
      await deadline.cut(client.query('ROLLBACK')).then(() => io.err('transaction rolled back\n'), () => undefined);
    }
    throw e;
  }
  try {
    await deadline.cut(client.query('COMMIT'));
  } catch (e) {
    throw e instanceof StepError ? e : new StepError(`postgres step: commit failed: ${errorText(e)}`);
  }
}

interface RunScope {
  writer: ResultWriter;
  deadline: Deadline;
  io: StepIO;
}

async function runOne(client: pg.Client, job: SqlJob, stmt: SqlStatement, scope: RunScope): Promise<void> {
  const started = performance.now();
  let done: Done;
  try {
    done = await scope.deadline.cut(query(client, stmt, job.maxRows, scope.writer));
  } catch (e) {
    if (e instanceof StepError) throw e;
    throw new StepError(`postgres step: ${statementName(job, stmt)} failed${position(job, stmt, e)}: ${errorText(e)}`);
  }
  const ms = Math.round(performance.now() - started);
  const what = done.truncated ? `${done.rows} rows (maxRows ${job.maxRows}; more were left unread)` : [done.command, done.rowCount].filter((x) => x !== null).join(' ');
  scope.io.err(`statement ${stmt.number}/${job.statements.length}: ${what || 'done'} (${ms} ms)\n`);
}

interface Done {
  command: string | null;
  rowCount: number | null;
  rows: number;
  truncated: boolean;
}

/** pg's Query, stopping after `rows` rows when it has a row limit instead of fetching the rest page by page. */
class CappedQuery extends pg.Query {
  truncated = false;

  handlePortalSuspended(connection: pg.Connection): void {
    this.truncated = true;
    connection.sync();
  }
}

interface QueryEnd {
  command: string | null;
  rowCount: number | null;
  fields: pg.FieldDef[];
}

/**
 * One statement; its rows go to the writer as they arrive (nothing is held in memory). With maxRows the
 * server is asked for one row more than that, so a cut result is known to be one.
 */
function query(client: pg.Client, stmt: SqlStatement, maxRows: number, writer: ResultWriter): Promise<Done> {
  const config = { text: stmt.sql, values: stmt.values.length > 0 ? stmt.values : undefined, rowMode: 'array', rows: maxRows > 0 ? maxRows + 1 : undefined };
  const q = new CappedQuery(config as pg.QueryConfig);
  let begun = false;
  let rows = 0;
  let more = false;
  const begin = (fields: pg.FieldDef[]): void => {
    if (!begun) writer.begin(fields.map((f) => f.name));
    begun = true;
  };
  return new Promise((resolve, reject) => {
    q.on('row', (row, result) => {
      begin((result as unknown as QueryEnd | undefined)?.fields ?? []);
      if (maxRows > 0 && rows >= maxRows) more = true;
      else { writer.row(row as unknown[]); rows++; }
    });
    q.on('error', reject);
    q.on('end', (result) => {
      const r = result as unknown as QueryEnd;
      if (r.fields.length > 0) begin(r.fields);
      if (begun) writer.end();
      resolve({ command: r.command, rowCount: r.rowCount, rows, truncated: more || q.truncated });
    });
    client.query(q);
  });
}

/** ` at line 3, column 15` of the SQL as written, when the server says where the error is. */
function position(job: SqlJob, stmt: SqlStatement, e: unknown): string {
  const pos = Number((e as { position?: string }).position);
  return Number.isInteger(pos) && pos > 0 ? ` at ${sourcePosition(job, stmt, pos - 1)}` : '';
}

/** The server's message with its SQLSTATE, detail and hint; a network error's code and message. */
export function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const x = e as Error & { code?: string; detail?: string; hint?: string; errors?: Error[] };
  const message = x.message || x.errors?.map((m) => m.message).join('; ') || x.code || 'unknown error';
  if (x instanceof pg.DatabaseError) {
    const extra = [x.code && `SQLSTATE ${x.code}`, x.detail && `detail: ${x.detail}`, x.hint && `hint: ${x.hint}`].filter(Boolean);
    return extra.length > 0 ? `${message} (${extra.join('; ')})` : message;
  }
  return x.code && !message.includes(x.code) ? `${x.code} ${message}` : message;
}

/**
 * Asks the server to cancel what the connection runs (the protocol's CancelRequest on a new socket):
 * closing our end alone would leave a long statement running on the server until it next writes to us.
 */
function cancelBackend(client: pg.Client): void {
  const { processID, secretKey } = client as unknown as { processID: number | null; secretKey: number | null };
  if (processID === null || secretKey === null || processID === undefined) return;
  const msg = Buffer.alloc(16);
  msg.writeInt32BE(16, 0);
  msg.writeInt32BE(80877102, 4);
  msg.writeInt32BE(processID, 8);
  msg.writeInt32BE(secretKey, 12);
  const host = client.host || 'localhost';
  const socket = host.startsWith('/') ? netConnect(`${host}/.s.PGSQL.${client.port}`) : netConnect(client.port, host);
  socket.setTimeout(5_000, () => socket.destroy());
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.end(msg));
}
