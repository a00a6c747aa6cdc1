/**
 * The run index of the embedded backend (ADR 0016): one SQLite file, `<dataDir>/index/runs.sqlite`,
 * opened with node:sqlite by every process that writes runs (the server, `svc start` in a terminal),
 * holding per run what lists filter and order on (core/run/run-list.ts RunEntry) and its resourceVersion.
 * This file is the SQL; index-keeper.ts decides when to write, build and repair it.
 *
 * It is a cache of the run files, never the truth: a list reads the runs its rows name and decides on
 * what the files say. Rows only move forward: a write carries the run's resourceVersion and never
 * replaces a row of a higher one (an equal one holds the same facts: a rebuild rewrites it), so writers,
 * a rebuild and a repair may interleave in any order.
 *
 * node:sqlite is synchronous: every statement here is small and indexed (a page of rows, one row, one
 * transaction of a few hundred rows), WAL mode lets readers run beside the one writer, and a busy
 * timeout waits out another process's transaction.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { RunKey, RunListFilter, RunPosition } from '../../../core/ports/run-store.js';
import type { RunEntry } from '../../../core/run/run-list.js';
import { formatTag, type TagFilterTerm } from '../../../core/spec/tags.js';
import type { Tag } from '../../../core/spec/types.js';

/** Bumped when the tables change: an index of another version is dropped and rebuilt. */
export const INDEX_SCHEMA = '1';
/** How long a statement waits for another process's write transaction. */
const BUSY_TIMEOUT_MS = 5000;
const MAX_STATEMENTS = 64;
/** Versions are read back as JS numbers: a hand-made resourceVersion beyond 2^53 is clamped (it only orders writes). */
const MAX_RV = BigInt(Number.MAX_SAFE_INTEGER);

/** A row: the list entry, and the resourceVersion of the status it was taken from. */
export interface IndexRow extends RunEntry {
  rv: bigint;
}

/** A write in flight (or left behind by a process that died in it): see IndexKeeper. */
export interface PendingWrite extends RunKey {
  rv: bigint;
  pid: number;
  since: number;
}

const SCHEMA = `
CREATE TABLE runs (
  root INTEGER NOT NULL, created INTEGER NOT NULL, id TEXT NOT NULL, dag TEXT NOT NULL,
  at INTEGER, status INTEGER NOT NULL, tags TEXT NOT NULL, rv INTEGER NOT NULL,
  PRIMARY KEY (root, created, id, dag)
) WITHOUT ROWID;
CREATE UNIQUE INDEX runs_key ON runs (dag, id);
CREATE INDEX runs_dag ON runs (dag, root, created, id);
CREATE INDEX runs_status ON runs (status, root, created, id, dag);
CREATE TABLE pending (
  dag TEXT NOT NULL, id TEXT NOT NULL, rv INTEGER NOT NULL, pid INTEGER NOT NULL, since INTEGER NOT NULL,
  PRIMARY KEY (dag, id, rv)
) WITHOUT ROWID;
`;

const UPSERT = `INSERT INTO runs (root, created, id, dag, at, status, tags, rv) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (dag, id) DO UPDATE SET root = excluded.root, created = excluded.created, at = excluded.at,
  status = excluded.status, tags = excluded.tags, rv = excluded.rv WHERE excluded.rv >= runs.rv`;

/** Tags as one text, `\nkey=value\nlabel\n`, so a tag filter term narrows with GLOB. */
export const encodeTags = (tags: readonly Tag[]): string => `\n${tags.map(formatTag).join('\n')}\n`;

export function decodeTags(text: string): Tag[] {
  return text.split('\n').filter((t) => t !== '').map((t) => {
    const eq = t.indexOf('=');
    return eq < 0 ? { key: t } : { key: t.slice(0, eq), value: t.slice(eq + 1) };
  });
}

/**
 * A GLOB that keeps at least the runs the term keeps (exact without wildcards: a GLOB `*` may also span
 * tags, which the check in core then refuses). None for an absent key with wildcards, which a superset
 * cannot express.
 */
function tagClause(t: TagFilterTerm): { sql: string; args: string[] } | undefined {
  const has = { sql: '(tags GLOB ? OR tags GLOB ?)', args: [`*\n${t.key}\n*`, `*\n${t.key}=*`] };
  if (t.kind === 'has') return has;
  if (t.kind === 'equals') return { sql: 'tags GLOB ?', args: [`*\n${t.key}=${t.value}\n*`] };
  return /[*?]/.test(t.key) ? undefined : { sql: `NOT ${has.sql}`, args: has.args };
}

/** The schema version the file holds; undefined for a new (empty) file. */
function schemaOf(db: DatabaseSync): string | undefined {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get()) return undefined;
  const v = db.prepare("SELECT v FROM meta WHERE k = 'schema'").get()?.v;
  return v === undefined ? undefined : String(v);
}

const clampRv = (rv: bigint): bigint => (rv > MAX_RV ? MAX_RV : rv < 0n ? 0n : rv);

export class RunIndex {
  private handle: DatabaseSync | undefined;
  private readonly statements = new Map<string, StatementSync>();

  constructor(readonly file: string) {}

  /** Opens the file (creating it and its tables) on first use; throws when SQLite cannot. */
  private get db(): DatabaseSync {
    if (this.handle) return this.handle;
    mkdirSync(dirname(this.file), { recursive: true });
    const db = new DatabaseSync(this.file, { timeout: BUSY_TIMEOUT_MS });
    try {
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
      // Every command that writes a run opens it: the usual case is one read, no write lock.
      if (schemaOf(db) !== INDEX_SCHEMA) {
        this.transaction(db, () => {
          db.exec('CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID');
          if (schemaOf(db) === INDEX_SCHEMA) return; // another process made it meanwhile
          db.exec('DROP TABLE IF EXISTS runs; DROP TABLE IF EXISTS pending; DELETE FROM meta');
          db.exec(SCHEMA);
          db.prepare("INSERT INTO meta (k, v) VALUES ('schema', ?)").run(INDEX_SCHEMA);
        });
      }
    } catch (err) {
      db.close();
      throw err;
    }
    this.handle = db;
    return db;
  }

  open(): void {
    void this.db;
  }

  close(): void {
    this.statements.clear();
    this.handle?.close();
    this.handle = undefined;
  }

  private stmt(sql: string): StatementSync {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      if (this.statements.size >= MAX_STATEMENTS) this.statements.delete(this.statements.keys().next().value as string);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** BEGIN IMMEDIATE: takes the write lock first, so the busy timeout applies (a deferred upgrade fails at once). */
  private transaction<T>(db: DatabaseSync, fn: () => T): T {
    db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      db.exec('COMMIT');
      return out;
    } catch (err) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw err;
    }
  }

  meta(k: string): string | undefined {
    const row = this.stmt('SELECT v FROM meta WHERE k = ?').get(k);
    return row ? String(row.v) : undefined;
  }

  setMeta(k: string, v: string | undefined): void {
    if (v === undefined) this.stmt('DELETE FROM meta WHERE k = ?').run(k);
    else this.stmt('INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v').run(k, v);
  }

  /** Sets `k` to `v` unless it holds a value `keep` accepts; whether it was set (one transaction). */
  claimMeta(k: string, v: string, keep: (current: string) => boolean): boolean {
    return this.transaction(this.db, () => {
      const current = this.meta(k);
      if (current !== undefined && keep(current)) return false;
      this.setMeta(k, v);
      return true;
    });
  }

  /** Rows written (or refreshed) together, each unless the row holds a higher version; with `meta`, a meta value too. */
  upsert(rows: readonly IndexRow[], done?: PendingWrite, meta?: [string, string]): void {
    const s = this.stmt(UPSERT);
    this.transaction(this.db, () => {
      for (const r of rows) {
        s.run(r.root ? 1 : 0, r.createdMs, r.dagRunId, r.dagName, Number.isNaN(r.timeMs) ? null : r.timeMs, r.status, encodeTags(r.tags), clampRv(r.rv));
      }
      if (done) this.stmt('DELETE FROM pending WHERE dag = ? AND id = ? AND rv = ?').run(done.dagName, done.dagRunId, clampRv(done.rv));
      if (meta) this.setMeta(...meta);
    });
  }

  /** Forgets a run's row: with `rv`, only that version (`upTo`: or an older one); a later one is a run created again. */
  remove(key: RunKey, rv?: bigint, upTo = false): void {
    if (rv === undefined) this.stmt('DELETE FROM runs WHERE dag = ? AND id = ?').run(key.dagName, key.dagRunId);
    else this.stmt(`DELETE FROM runs WHERE dag = ? AND id = ? AND rv ${upTo ? '<=' : '='} ?`).run(key.dagName, key.dagRunId, clampRv(rv));
  }

  addPending(w: PendingWrite): void {
    this.stmt('INSERT OR REPLACE INTO pending (dag, id, rv, pid, since) VALUES (?, ?, ?, ?, ?)')
      .run(w.dagName, w.dagRunId, clampRv(w.rv), w.pid, w.since);
  }

  dropPending(ws: readonly PendingWrite[]): void {
    const s = this.stmt('DELETE FROM pending WHERE dag = ? AND id = ? AND rv = ?');
    this.transaction(this.db, () => { for (const w of ws) s.run(w.dagName, w.dagRunId, clampRv(w.rv)); });
  }

  /** Every write in flight or left behind (a handful: rows live for the few ms of one write). */
  pending(max: number): PendingWrite[] {
    return this.stmt('SELECT dag, id, rv, pid, since FROM pending LIMIT ?').all(max).map((r) => ({
      dagName: String(r.dag), dagRunId: String(r.id), rv: BigInt(r.rv as number), pid: Number(r.pid), since: Number(r.since),
    }));
  }

  /**
   * Up to `limit` rows the filter may keep, in list order, after `after`: a superset of what core keeps
   * (tags with wildcards are checked by the caller), narrowed by the index that fits.
   */
  query(f: RunListFilter, after: RunPosition | undefined, limit: number): IndexRow[] {
    const where: string[] = [];
    const args: SQLInputValue[] = [];
    const add = (sql: string, ...values: SQLInputValue[]): void => { where.push(sql); args.push(...values); };
    if (f.rootOnly) add('root = 1'); // a literal: the planner matches it against the primary key
    if (f.dagName !== undefined) add('dag = ?', f.dagName);
    if (f.status !== undefined) add('status = ?', f.status);
    if (f.fromMs !== undefined) add('at >= ?', f.fromMs);
    if (f.toMs !== undefined) add('at <= ?', f.toMs);
    if (f.dagRunIdContains) add('instr(id, ?) > 0', f.dagRunIdContains);
    for (const term of f.tags?.terms ?? []) {
      const c = tagClause(term);
      if (c) add(c.sql, ...c.args);
    }
    if (after) {
      // Within one DAG the (created, id) bound is what its index can seek to; the full one decides.
      if (f.dagName !== undefined) add('(created, id) <= (?, ?)', after.createdMs, after.dagRunId);
      add('(created, id, dag) < (?, ?, ?)', after.createdMs, after.dagRunId, after.dagName);
    }
    // Without statistics the planner prefers the primary key's order; name the index that narrows.
    const by = f.dagName !== undefined ? 'INDEXED BY runs_dag' : f.status !== undefined ? 'INDEXED BY runs_status' : '';
    const sql = `SELECT root, created, id, dag, at, status, tags, rv FROM runs ${by} WHERE ${where.length > 0 ? where.join(' AND ') : '1'}
      ORDER BY created DESC, id DESC, dag DESC LIMIT ?`;
    return this.stmt(sql).all(...args, limit).map((r) => ({
      root: r.root === 1, createdMs: Number(r.created), dagRunId: String(r.id), dagName: String(r.dag),
      timeMs: r.at === null ? NaN : Number(r.at), status: Number(r.status), tags: decodeTags(String(r.tags)), rv: BigInt(r.rv as number),
    }));
  }

  count(): number {
    return Number(this.stmt('SELECT count(*) AS n FROM runs').get()?.n ?? 0);
  }
}
