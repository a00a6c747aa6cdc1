/**
 * Keeps the run index (run-index.ts) in step with the run files, and answers lists from it (ADR 0016).
 *
 * Writes: LocalRunStore calls beforeWrite, writes the run's files, then afterWrite. beforeWrite records
 * the write as pending (its key, version and this process's pid); afterWrite writes the row and clears
 * the pending record in one transaction. A status write that changes nothing a list filters on (most of
 * them: node progress) skips both. A process that dies between its file write and its row leaves the
 * pending record: the next list in any process (at most once a second) repairs it from the files, at
 * once when the writer's pid is gone, after a grace period when it still runs.
 *
 * Building: an index that is missing, of another schema, or marked stale (a write to it failed) is
 * built from the run files in the background, in small transactions, resumable (the DAGs done are
 * recorded), by one process at a time (a claim holding its pid). Until it is complete, lists read the
 * run files as before (LocalRunStore's scan). The build waits on unref'd timers between batches, so a
 * short-lived command never stays alive for it; the next long-lived process carries on.
 *
 * Reads: the index orders and narrows; the runs its rows name are read from their files and core's
 * filter decides on what the files say. A row whose run is gone is dropped; a row whose facts are behind
 * the files is refreshed.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../../../core/ports/clock.js';
import { runKeyText, type RunKey, type RunListFilter, type RunPosition } from '../../../core/ports/run-store.js';
import type { DagRunResource } from '../../../core/resources.js';
import { matchesRunFilter, runEntryOf } from '../../../core/run/run-list.js';
import { mapLimit } from './helpers.js';
import { RunIndex, type IndexRow, type PendingWrite } from './run-index.js';

/** What the keeper needs of the store: the run directories and reading one run. */
export interface IndexedRuns {
  runsRoot: string;
  dagNames(): Promise<string[]>;
  runIds(dagName: string): Promise<string[]>;
  read(key: RunKey): Promise<DagRunResource | undefined>;
}

export interface KeeperOptions {
  file: string;
  clock: Clock;
  pid?: number;
  /** Whether a process runs (default: signal 0). */
  isAlive?: (pid: number) => boolean;
}

/** How often a list checks for writes left pending and for a stale mark. */
const CHECK_EVERY_MS = 1000;
/** A pending write of a process that still runs is repaired after this long (it is slow, or stuck). */
const PENDING_GRACE_MS = 30_000;
/** After SQLite failed to open the file, lists read the files for this long before the next try. */
const RETRY_OPEN_MS = 60_000;
const BUILD_BATCH = 256;
const BUILD_READS = 16;
const LIST_READS = 16;
const MIN_CHUNK = 32;
const MAX_CHUNK = 1000;
const MAX_FACTS = 10_000;
/** SQLite result codes of a file that is not (or no longer) a database. */
const CORRUPT_CODES = new Set([11, 26]);

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const rowOf = (run: DagRunResource): IndexRow => ({ ...runEntryOf(run), rv: BigInt(run.metadata.resourceVersion) });
const factsOf = (row: IndexRow): string => `${row.status}|${row.timeMs}`;
const positionOf = (r: IndexRow): RunPosition => ({ createdMs: r.createdMs, dagRunId: r.dagRunId, dagName: r.dagName });

/** A write announced by beforeWrite. */
export interface IndexWrite {
  row: IndexRow;
  pending: PendingWrite | undefined;
}

export class IndexKeeper {
  private readonly index: RunIndex;
  private readonly pid: number;
  private readonly isAlive: (pid: number) => boolean;
  private opened = false;
  private offUntil = 0;
  private complete = false;
  private checkedAt = -Infinity;
  private building: Promise<void> | undefined;
  /** Build with ref'd timers (someone awaits it). */
  private foreground = false;
  /** The facts last written per run by this process: a write that changes none of them is skipped. */
  private readonly facts = new Map<string, string>();

  constructor(private readonly runs: IndexedRuns, private readonly o: KeeperOptions) {
    this.index = new RunIndex(o.file);
    this.pid = o.pid ?? process.pid;
    this.isAlive = o.isAlive ?? pidAlive;
  }

  private get staleMark(): string { return `${this.o.file}.stale`; }

  /** Opens the index (before a first write, so a fresh data directory starts complete). */
  open(): boolean {
    if (this.opened) return true;
    const now = this.o.clock.now();
    if (now < this.offUntil) return false;
    try {
      this.index.open();
    } catch (err) {
      if (!this.moveAside(err)) {
        // Writes go unindexed meanwhile: whoever opens it next reconciles.
        this.offUntil = now + RETRY_OPEN_MS;
        this.markStale();
        return false;
      }
    }
    this.opened = true;
    // No run yet: complete from the start (every process that creates one writes its row).
    if (!this.complete && this.use(() => this.index.meta('complete')) !== '1' && this.emptyRoot()) this.ok(() => this.index.setMeta('complete', '1'));
    return true;
  }

  /** A file SQLite says is no database is moved aside and the index started afresh (rebuilt from the runs). */
  private moveAside(err: unknown): boolean {
    if (!CORRUPT_CODES.has((err as { errcode?: number }).errcode ?? -1)) return false;
    try {
      this.index.close();
      renameSync(this.o.file, `${this.o.file}.broken-${this.o.clock.now()}`);
      for (const ext of ['-wal', '-shm']) rmSync(`${this.o.file}${ext}`, { force: true });
      this.index.open();
      return true;
    } catch {
      return false;
    }
  }

  private emptyRoot(): boolean {
    try {
      return readdirSync(this.runs.runsRoot).length === 0;
    } catch {
      return true;
    }
  }

  close(): void {
    this.index.close();
    this.opened = false;
  }

  /** Runs an index operation; a failure marks the index stale (rebuilt later) and gives undefined. */
  private use<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch {
      this.markStale();
      return undefined;
    }
  }

  private markStale(): void {
    try {
      mkdirSync(dirname(this.staleMark), { recursive: true });
      writeFileSync(this.staleMark, '');
    } catch { /* the next failure tries again */ }
  }

  /** The same for an operation without a result: whether it succeeded. */
  private ok(fn: () => void): boolean {
    return this.use(() => { fn(); return true; }) ?? false;
  }

  // ------------------------------------------------------------------------------------------ writes
  /** Before the files of `run` (as it will be stored) are written; undefined when its row needs no write. */
  beforeWrite(run: DagRunResource): IndexWrite | undefined {
    const row = rowOf(run);
    if (this.facts.get(runKeyText(row)) === factsOf(row) || !this.open()) return undefined;
    const pending: PendingWrite = { dagName: row.dagName, dagRunId: row.dagRunId, rv: row.rv, pid: this.pid, since: this.o.clock.now() };
    return { row, pending: this.ok(() => this.index.addPending(pending)) ? pending : undefined };
  }

  /** After the files were written. */
  afterWrite(w: IndexWrite | undefined): void {
    if (!w) return;
    if (!this.ok(() => this.index.upsert([w.row], w.pending))) return;
    const key = runKeyText(w.row);
    this.facts.delete(key);
    this.facts.set(key, factsOf(w.row));
    if (this.facts.size > MAX_FACTS) this.facts.delete(this.facts.keys().next().value as string);
  }

  /** The files were not written after all. */
  abandon(w: IndexWrite | undefined): void {
    if (w?.pending) this.use(() => this.index.dropPending([w.pending!]));
  }

  /** After a run was deleted: its row up to the version it had (a newer one is a run created again since). */
  afterDelete(key: RunKey, rv: bigint | undefined): void {
    this.facts.delete(runKeyText(key));
    if (this.open()) this.use(() => this.index.remove(key, rv, true));
  }

  // ------------------------------------------------------------------------------------------- reads
  /** The runs the filter keeps, in list order, from the index; undefined when it cannot answer (scan). */
  async list(f: RunListFilter): Promise<DagRunResource[] | undefined> {
    if (!(await this.usable())) return undefined;
    const want = f.limit ?? Infinity;
    const out: DagRunResource[] = [];
    let after = f.after;
    for (;;) {
      const chunk = Math.min(Math.max(want - out.length, MIN_CHUNK), MAX_CHUNK);
      const rows = this.use(() => this.index.query(f, after, chunk));
      if (!rows) return undefined;
      const need = want - out.length;
      const picked: IndexRow[] = [];
      let scanned = rows.length;
      for (let i = 0; i < rows.length && scanned === rows.length; i++) {
        if (matchesRunFilter(rows[i]!, f)) picked.push(rows[i]!);
        if (picked.length >= need) scanned = i + 1;
      }
      const runs = await mapLimit(picked, LIST_READS, (r) => this.runs.read(r));
      picked.forEach((r, i) => {
        const run = runs[i];
        if (!run) this.use(() => this.index.remove(r, r.rv));
        else if (matchesRunFilter(runEntryOf(run), f)) out.push(run);
        else this.use(() => this.index.upsert([rowOf(run)]));
      });
      const last = rows[scanned - 1];
      if (out.length >= want || !last || (scanned === rows.length && rows.length < chunk)) return out;
      after = positionOf(last);
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Resolves once the index is complete (building it in the foreground); false when SQLite is unusable or time ran out. */
  async whenReady(timeoutMs = 600_000): Promise<boolean> {
    this.foreground = true;
    const deadline = this.o.clock.now() + timeoutMs;
    try {
      while (this.open() && !(await this.usable()) && this.o.clock.now() < deadline) {
        await this.building;
        if (!this.complete) await new Promise((r) => setTimeout(r, 50)); // another process builds
      }
      return this.complete;
    } finally {
      this.foreground = false;
    }
  }

  /** Whether lists can use the index now; starts a build or a repair when one is due. */
  private async usable(): Promise<boolean> {
    if (!this.open()) return false;
    const now = this.o.clock.now();
    if (this.complete && now - this.checkedAt < CHECK_EVERY_MS) return true;
    this.checkedAt = now;
    this.complete ||= this.use(() => this.index.meta('complete') === '1') ?? false;
    if (!this.complete || existsSync(this.staleMark)) this.startBuild();
    if (this.complete) await this.repair(now);
    return this.complete;
  }

  /** Writes left pending by a process that died (or is stuck): their rows from the files as they are. */
  private async repair(now: number): Promise<void> {
    const stale = (this.use(() => this.index.pending(500)) ?? [])
      .filter((w) => now - w.since > PENDING_GRACE_MS || (w.pid !== this.pid && !this.isAlive(w.pid)));
    const keys = new Map(stale.map((w) => [runKeyText(w), w as RunKey]));
    for (const key of keys.values()) {
      const run = await this.runs.read({ dagName: key.dagName, dagRunId: key.dagRunId }).catch(() => undefined);
      // A run that is gone (or was never written) needs no row: a list drops a row whose run is missing.
      if (run) this.use(() => this.index.upsert([rowOf(run)]));
    }
    if (stale.length > 0) this.use(() => this.index.dropPending(stale));
  }

  // ----------------------------------------------------------------------------------------- building
  private startBuild(): void {
    this.building ??= this.build().catch(() => undefined).finally(() => { this.building = undefined; });
  }

  private pause(): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(r, 1);
      if (!this.foreground) t.unref();
    });
  }

  private async build(): Promise<void> {
    await this.pause();
    const me = String(this.pid);
    const claimed = this.use(() => this.index.claimMeta('builder', me, (cur) => cur !== me && this.isAlive(Number(cur))));
    if (!claimed) return;
    try {
      rmSync(this.staleMark, { force: true });
      const from = this.use(() => this.index.meta('builtThrough')) ?? '';
      let batch: RunKey[] = [];
      let through: string | undefined;
      for (const dagName of (await this.runs.dagNames()).sort()) {
        if (from !== '' && dagName <= from) continue;
        for (const dagRunId of await this.runs.runIds(dagName)) {
          batch.push({ dagName, dagRunId });
          if (batch.length < BUILD_BATCH) continue;
          await this.buildBatch(batch, through);
          batch = [];
        }
        through = dagName;
      }
      await this.buildBatch(batch, through);
      this.use(() => { this.index.setMeta('complete', '1'); this.index.setMeta('builtThrough', undefined); });
      this.complete = true;
    } finally {
      this.use(() => { if (this.index.meta('builder') === me) this.index.setMeta('builder', undefined); });
    }
  }

  /** Rows for a batch of runs, and (in the same transaction) the last DAG whose runs are all in. */
  private async buildBatch(keys: RunKey[], through: string | undefined): Promise<void> {
    // A run that cannot be read is left out: a list that reaches it by the scan reports it.
    const runs = await mapLimit(keys, BUILD_READS, (k) => this.runs.read(k).catch(() => undefined));
    const rows = runs.filter((r): r is DagRunResource => r !== undefined).map(rowOf);
    if (!this.ok(() => this.index.upsert(rows, undefined, through === undefined ? undefined : ['builtThrough', through]))) throw new Error('index write failed');
    await this.pause();
  }
}
