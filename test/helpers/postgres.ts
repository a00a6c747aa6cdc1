/**
 * A real PostgreSQL server for tests: the Debian package's binaries (/usr/lib/postgresql/<n>/bin, or
 * the directory SVC_PG_BIN names), a fresh cluster made by initdb in a temp directory, started on
 * 127.0.0.1 on a free port (and a unix socket in the same directory), password (SCRAM) authentication
 * for a throwaway superuser, stopped by stop() with a fast shutdown and its directory removed.
 * initdb and postgres refuse to run as root: as root they run as the `postgres` system user, which
 * then owns the temp directory. Nothing listens beyond loopback.
 */
import { describeWith, freePort, stopProcess } from './needs.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The directory of initdb and postgres: SVC_PG_BIN, else the newest /usr/lib/postgresql/<n>/bin. */
export function postgresBin(): string | undefined {
  const env = process.env.SVC_PG_BIN;
  if (env) return existsSync(join(env, 'postgres')) ? env : undefined;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(base, v, 'bin')).find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'postgres')));
}

/** uid and gid of the `postgres` system user, read from /etc/passwd. */
function postgresUser(): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : undefined;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Why PostgreSQL tests cannot run here, or undefined. */
export function postgresSkipReason(): string | undefined {
  if (postgresBin() === undefined) {
    return process.env.SVC_PG_BIN
      ? `SVC_PG_BIN=${process.env.SVC_PG_BIN} has no postgres binary`
      : 'no PostgreSQL server binaries: install the Debian package postgresql (or set SVC_PG_BIN to a directory with initdb and postgres)';
  }
  if (isRoot() && !postgresUser()) return 'running as root and there is no postgres system user to run the server as';
  return undefined;
}

/** describe() for tests that need PostgreSQL. Without it: under CI=true the suite fails; elsewhere it is skipped loudly. */
export function describePostgres(name: string, fn: () => void): void {
  describeWith('PostgreSQL', postgresSkipReason(), name, fn);
}

export interface PostgresServer {
  host: string;
  port: number;
  /** The unix socket directory. */
  socketDir: string;
  user: string;
  password: string;
  database: string;
  /** postgres://user:password@127.0.0.1:port/database?sslmode=disable */
  url: string;
  /** A connected client (closed by the caller). */
  client(): Promise<pg.Client>;
  stop(): Promise<void>;
}


const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Spawn options that run a program as the postgres user when we are root. */
function asServerUser(): { uid?: number; gid?: number } {
  return isRoot() ? postgresUser()! : {};
}

function initdb(bin: string, dir: string, user: string, password: string): void {
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  const owner = asServerUser();
  if (owner.uid !== undefined) chownSync(pwfile, owner.uid, owner.gid!);
  const r = spawnSync(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-U', user, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync'], {
    ...owner, cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, LANG: 'C' },
  });
  rmSync(pwfile, { force: true });
  if (r.status !== 0) throw new Error(`initdb failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
}

/** SIGINT is PostgreSQL's fast shutdown: active sessions are ended, no waiting for clients. */
const stopPostgres = (proc: ChildProcess): Promise<void> => stopProcess(proc, 'SIGINT', 10_000);

async function ready(proc: ChildProcess, connect: () => Promise<pg.Client>, log: () => string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`postgres exited (${proc.exitCode ?? proc.signalCode}): ${log().slice(-2000)}`);
    const c = await connect().catch(() => undefined);
    if (c) { await c.end(); return; }
    await sleep(100);
  }
  throw new Error(`postgres did not accept connections within ${timeoutMs} ms: ${log().slice(-2000)}`);
}

async function startOnce(bin: string, dir: string, creds: { user: string; password: string }): Promise<PostgresServer> {
  const port = await freePort();
  const host = '127.0.0.1';
  const proc = spawn(join(bin, 'postgres'), [
    '-D', join(dir, 'data'), '-k', dir, '-h', host, '-p', String(port),
    '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'shared_buffers=16MB', '-c', 'max_connections=30',
  ], { ...asServerUser(), cwd: dir, env: { PATH: process.env.PATH, LANG: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr?.on('data', (d: Buffer) => { log = (log + d.toString()).slice(-8000); });
  const database = 'postgres';
  const client = async (): Promise<pg.Client> => {
    const c = new pg.Client({ host, port, user: creds.user, password: creds.password, database });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  try {
    await ready(proc, client, () => log);
  } catch (e) {
    await stopPostgres(proc);
    throw e;
  }
  return {
    host, port, socketDir: dir, ...creds, database, client,
    url: `postgres://${creds.user}:${encodeURIComponent(creds.password)}@${host}:${port}/${database}?sslmode=disable`,
    stop: () => stopPostgres(proc),
  };
}

/** Starts PostgreSQL (a second try on another port if the first one was taken meanwhile). */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  if (bin === undefined) throw new Error(postgresSkipReason());
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const owner = asServerUser();
  if (owner.uid !== undefined) chownSync(dir, owner.uid, owner.gid!);
  mkdirSync(join(dir, 'data'), { mode: 0o700 });
  if (owner.uid !== undefined) chownSync(join(dir, 'data'), owner.uid, owner.gid!);
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  const creds = { user: 'svc_test', password: `pw-${randomBytes(9).toString('base64url')}` };
  try {
    initdb(bin, dir, creds.user, creds.password);
  } catch (e) {
    cleanup();
    throw e;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const server = await startOnce(bin, dir, creds);
      return { ...server, stop: async () => { await server.stop(); cleanup(); } };
    } catch (e) {
      if (attempt >= 2) {
        cleanup();
        throw e;
      }
    }
  }
}
