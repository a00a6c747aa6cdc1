/**
 * RunFeed on local disk: every saved change of every run under `<dataDir>/runs`, whichever process saved
 * it (this server's drivers, a foreground `svc start`, another server on the same data directory).
 *
 * What it watches (inotify through fs.watch), so that the cost follows the active runs, not the history:
 * - `runs/` itself (a new DAG directory) and each `runs/<dag>/` (a new or removed run directory);
 * - the directory of each run that is not finished: status.json is replaced by a rename on every save,
 *   so one event arrives per save. A finished run's directory is not watched.
 * Changes this process saves come from `local` at once, with no file read. Everything else is read:
 * the first bytes of status.json (its resourceVersion) first, the whole run only when that version is
 * new. A periodic rescan (one stat per run) catches what no watch reported: a finished run retried by
 * another process, a watch that could not be set up (inotify instances or watches used up: then the
 * rescan runs more often). Started by the first subscriber, stopped a while after the last one left.
 */
import { existsSync, mkdirSync, watch, type FSWatcher } from 'node:fs';
import { lstat } from 'node:fs/promises';
import type { RunFeed } from '../../../core/ports/run-feed.js';
import { runKeyOf, runKeyText, type RunKey, type RunStore } from '../../../core/ports/run-store.js';
import { isSafeDagName, isValidRunId, type DagRunResource } from '../../../core/resources.js';
import { isRunTerminal, type RunStatus } from '../../../core/run/status.js';
import { isNotFound } from '../../fs/atomic.js';
import { mapLimit, readdirSafe } from './helpers.js';
import { RunFiles } from './run-files.js';
import { Layout, SPEC_FILE, STATUS_FILE } from './paths.js';

type Watch = (path: string, opts: { persistent: boolean }, listener: (event: string, name: string | null) => void) => FSWatcher;

export interface LocalRunFeedOptions {
  dataDir: string;
  /** Reads a whole run (the local run store). */
  store: Pick<RunStore, 'get'>;
  /** Changes saved by this process, delivered as they are saved (engine onChange): no file is read for them. */
  local?: (fn: (run: DagRunResource) => void) => () => void;
  /** Rescan interval (default 10 s), and while some watch could not be set up (default 2 s). */
  rescanMs?: number;
  degradedRescanMs?: number;
  /** How long the watches stay after the last subscriber left (a reconnecting client finds them; default 60 s). */
  lingerMs?: number;
  /** fs.watch (replaceable to test the fallback). */
  watch?: Watch;
}

/** status.json starts `{"resourceVersion":"<n>","uid":"..","status":{"attemptId":"..","queuedAt":"..","run":{"status":<n>,` */
const HEAD_BYTES = 512;
const HEAD = /^\{"resourceVersion":"(\d+)","uid":"[^"]*","status":\{"attemptId":"[^"\\]*","queuedAt":"[^"\\]*","run":\{"status":(\d+)[,}]/;
const VERSION = /^\{"resourceVersion":"(\d+)"/;
/** Runs looked at in parallel by a scan: far from EMFILE. */
const SCAN_CONCURRENCY = 32;

interface Tracked {
  key: RunKey;
  /** Highest resourceVersion delivered (or seen by the first scan); -1 before any. */
  rv: bigint;
  /** inode, mtime and size of status.json when last looked at: the rescan reads only what changed. */
  sig: string;
  watcher?: FSWatcher;
  busy?: boolean;
  again?: boolean;
}

const versionOf = (rv: string | undefined): bigint => {
  try {
    return rv ? BigInt(rv) : 0n;
  } catch {
    return 0n;
  }
};

export class LocalRunFeed implements RunFeed {
  private readonly layout: Layout;
  /** status.json is read through the safe open: a step may have planted a link or a FIFO at its name. */
  private readonly files: RunFiles;
  private readonly watchFn: Watch;
  private readonly rescanMs: number;
  private readonly degradedRescanMs: number;
  private readonly lingerMs: number;
  private readonly listeners = new Set<(run: DagRunResource) => void>();
  private readonly runs = new Map<string, Tracked>();
  private readonly dagWatchers = new Map<string, FSWatcher>();
  private rootWatcher: FSWatcher | undefined;
  private started: Promise<void> | undefined;
  private offLocal: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private linger: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private degraded = false;
  /** Watchers closed after an error: set up again by the next look or rescan. */
  private readonly dead = new WeakSet<FSWatcher>();
  private generation = 0;

  constructor(private readonly o: LocalRunFeedOptions) {
    this.layout = new Layout(o.dataDir);
    this.files = new RunFiles(this.layout.runsRoot);
    this.watchFn = o.watch ?? (watch as Watch);
    this.rescanMs = o.rescanMs ?? 10_000;
    this.degradedRescanMs = o.degradedRescanMs ?? 2000;
    this.lingerMs = o.lingerMs ?? 60_000;
  }

  subscribe(fn: (run: DagRunResource) => void): () => void {
    this.listeners.add(fn);
    clearTimeout(this.linger);
    this.started ??= this.start();
    return () => {
      if (!this.listeners.delete(fn) || this.listeners.size > 0) return;
      clearTimeout(this.linger);
      this.linger = setTimeout(() => this.stop(), this.lingerMs).unref();
    };
  }

  ready(): Promise<void> {
    return this.started ?? Promise.resolve();
  }

  /** Runs tracked and directories watched (tests, and the cost report). */
  stats(): { runs: number; watches: number; degraded: boolean } {
    let watches = this.dagWatchers.size + (this.rootWatcher ? 1 : 0);
    for (const t of this.runs.values()) if (t.watcher) watches++;
    return { runs: this.runs.size, watches, degraded: this.degraded };
  }

  /** Stops watching at once (server shutdown). */
  close(): void {
    this.listeners.clear();
    this.stop();
  }

  private async start(): Promise<void> {
    const generation = ++this.generation;
    this.offLocal = this.o.local?.((run) => this.offer(run));
    try { mkdirSync(this.layout.runsRoot, { recursive: true }); } catch { /* watchDir falls back to the rescan */ }
    this.rootWatcher = this.watchDir(this.layout.runsRoot, (name) => {
      if (name && isSafeDagName(name)) void this.scanDag(name, false);
    });
    await this.scan(true).catch(() => this.degrade());
    if (generation === this.generation) this.schedule();
  }

  private stop(): void {
    this.generation++;
    this.started = undefined;
    clearTimeout(this.linger);
    clearTimeout(this.timer);
    this.offLocal?.();
    this.offLocal = undefined;
    this.rootWatcher?.close();
    this.rootWatcher = undefined;
    for (const w of this.dagWatchers.values()) w.close();
    this.dagWatchers.clear();
    for (const t of this.runs.values()) t.watcher?.close();
    this.runs.clear();
    this.degraded = false;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const generation = this.generation;
    this.timer = setTimeout(() => {
      this.scanning ??= this.scan(false).catch(() => this.degrade()).finally(() => { this.scanning = undefined; });
      void this.scanning.then(() => { if (generation === this.generation) this.schedule(); });
    }, this.degraded ? this.degradedRescanMs : this.rescanMs).unref();
  }

  /** Every DAG directory and run; `baseline`: the first scan, which records what it finds and delivers nothing. */
  private async scan(baseline: boolean): Promise<void> {
    const generation = this.generation;
    const seen = new Set<string>();
    for (const dagName of await readdirSafe(this.layout.runsRoot)) {
      if (generation !== this.generation) return;
      if (isSafeDagName(dagName)) for (const k of await this.scanDag(dagName, baseline)) seen.add(k);
    }
    if (generation !== this.generation) return;
    for (const [k, t] of this.runs) if (!seen.has(k)) this.forget(k, t);
  }

  /** One DAG directory: watched, and each run in it looked at. Returns the runs' keys. */
  private async scanDag(dagName: string, baseline: boolean): Promise<string[]> {
    let dir: string;
    try { dir = this.layout.dagDir(dagName); } catch { return []; }
    if (!this.alive(this.dagWatchers.get(dagName))) {
      const w = this.watchDir(dir, (name) => {
        if (name && isValidRunId(name)) void this.check({ dagName, dagRunId: name }, false);
      });
      if (w) this.dagWatchers.set(dagName, w);
    }
    const keys = (await readdirSafe(dir)).filter(isValidRunId).map((dagRunId) => ({ dagName, dagRunId }));
    await mapLimit(keys, SCAN_CONCURRENCY, (key) => this.check(key, baseline));
    return keys.map(runKeyText);
  }

  /** Looks at a run again; one look per run at a time (a look asked for meanwhile follows). */
  private async check(key: RunKey, baseline: boolean): Promise<void> {
    const k = runKeyText(key);
    let t = this.runs.get(k);
    if (!t) {
      t = { key, rv: -1n, sig: '' };
      this.runs.set(k, t);
      // Found by a watch or a rescan: a new run, which is about to change. Watched before it is read.
      if (!baseline) this.follow(t, true);
    }
    if (t.busy) {
      t.again = true;
      return;
    }
    t.busy = true;
    try {
      do {
        t.again = false;
        await this.look(k, t, baseline);
      } while (t.again);
    } catch {
      // A file that cannot be read now (corrupt, permissions): the next event or rescan looks again.
    } finally {
      t.busy = false;
    }
  }

  private async look(k: string, t: Tracked, baseline: boolean): Promise<void> {
    const p = this.layout.runPaths(t.key);
    let sig: string;
    try {
      const st = await lstat(p.status); // the name's own: a link's target is never looked at
      sig = `${st.ino}:${st.mtimeMs}:${st.size}`;
    } catch (e) {
      if (isNotFound(e) && !existsSync(p.dir)) this.forget(k, t);
      return;
    }
    if (sig === t.sig) return;
    const head = this.files.head(p.status, HEAD_BYTES) ?? '';
    const full = HEAD.exec(head);
    const version = full?.[1] ?? VERSION.exec(head)?.[1];
    if (version !== undefined && BigInt(version) <= t.rv) {
      t.sig = sig;
      return;
    }
    if (baseline && full) {
      t.sig = sig;
      t.rv = BigInt(full[1]!);
      this.follow(t, !isRunTerminal(Number(full[2]) as RunStatus));
      return;
    }
    const run = await this.o.store.get(t.key);
    // Half-written (spec.json comes last): its rename is an event of the watched directory.
    if (!run) return;
    t.sig = sig;
    if (baseline) {
      t.rv = versionOf(run.metadata.resourceVersion);
      this.follow(t, !isRunTerminal(run.status.run.status));
    } else {
      this.offer(run);
    }
  }

  /** A run's new state: delivered unless an equal or newer one was. */
  private offer(run: DagRunResource): void {
    if (!this.started) return;
    const key = runKeyOf(run);
    const k = runKeyText(key);
    let t = this.runs.get(k);
    if (!t) {
      t = { key, rv: -1n, sig: '' };
      this.runs.set(k, t);
    }
    const rv = versionOf(run.metadata.resourceVersion);
    if (rv <= t.rv) return;
    t.rv = rv;
    this.follow(t, !isRunTerminal(run.status.run.status));
    for (const fn of this.listeners) {
      try { fn(run); } catch { /* a listener never stops the others */ }
    }
  }

  /** Watches the run's directory while the run is not finished. */
  private follow(t: Tracked, active: boolean): void {
    if (active && !this.alive(t.watcher)) {
      t.watcher = this.watchDir(this.layout.runPaths(t.key).dir, (name) => {
        if (name === STATUS_FILE || name === SPEC_FILE || name === null) void this.check(t.key, false);
      });
    } else if (!active && t.watcher) {
      t.watcher.close();
      t.watcher = undefined;
    }
  }

  private forget(k: string, t: Tracked): void {
    t.watcher?.close();
    this.runs.delete(k);
  }

  private watchDir(path: string, onName: (name: string | null) => void): FSWatcher | undefined {
    try {
      const w = this.watchFn(path, { persistent: false }, (_event, name) => onName(name));
      w.on('error', () => {
        w.close();
        this.dead.add(w);
        // A directory removed meanwhile (a deleted run) is no failure.
        if (existsSync(path)) this.degrade();
      });
      return w;
    } catch (e) {
      // A directory removed meanwhile is no failure; anything else (EMFILE, ENOSPC) leaves the rescan to it.
      if (!isNotFound(e)) this.degrade();
      return undefined;
    }
  }

  private alive(w: FSWatcher | undefined): w is FSWatcher {
    return w !== undefined && !this.dead.has(w);
  }

  private degrade(): void {
    if (this.degraded) return;
    this.degraded = true;
    if (this.timer) this.schedule();
  }
}
