/**
 * A watch-fed cache of one namespace's DagRuns, so that list() reads memory instead of LISTing
 * thousands of objects on every `GET /dag-runs`.
 *
 * - Synced once the informer has listed and its watch is open; after a watch error it is unsynced
 *   (callers LIST the API) until a restart, with backoff, succeeds.
 * - Read your own writes: objects() waits (briefly) until the watch has delivered the highest
 *   resourceVersion this instance wrote; runs this instance deleted are hidden until the watch drops
 *   them. Writes of other instances show up as soon as the watch delivers them.
 * resourceVersions are compared as integers: the API server issues etcd revisions, and the watch
 * delivers them in order. A version that is not an integer counts as 0 (never waited for).
 */
import { ListWatch, Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { DagRunApi } from './run-api.js';
import type { DagRunObject } from './run-mapping.js';
import { isRunTerminal, RunStatus, runStatusLabel } from '../../core/run/status.js';

/** How long objects() waits for the watch to deliver this instance's own writes before giving up. */
export const DEFAULT_CATCH_UP_MS = 2000;
const MAX_BACKOFF_MS = 30_000;
/** Deleted runs remembered until the watch drops them (a bound, for deletes the watch never saw). */
const MAX_GONE = 10_000;

const version = (rv: string | undefined): bigint => {
  try {
    return rv ? BigInt(rv) : 0n;
  } catch {
    return 0n;
  }
};

export type RunCacheEvent = 'add' | 'update' | 'delete';

export class RunCache {
  private readonly informer: ListWatch<KubernetesObject>;
  private synced = false;
  private closed = false;
  private failedSinceStart = false;
  private backoffMs = 0;
  private restart: NodeJS.Timeout | undefined;
  /** Highest resourceVersion the watch delivered, and the highest this instance wrote. */
  private seen = 0n;
  private wrote = 0n;
  /** name -> uid of runs this instance deleted, until the watch reports the deletion. */
  private readonly gone = new Map<string, string>();
  private readonly wakers = new Set<() => void>();
  private readonly listeners = new Set<(type: RunCacheEvent, o: DagRunObject) => void>();

  /**
   * `slimFinished`: finished runs are kept without their definition snapshot and node records (what a
   * process that drives runs never reads back from a list), so memory follows the active runs, not the
   * history. Listeners still see each change whole.
   */
  private readonly fieldSelected: boolean;

  constructor(kc: KubeConfig, api: DagRunApi, private readonly catchUpMs = DEFAULT_CATCH_UP_MS, private readonly slimFinished = false, fieldSelector?: string) {
    this.fieldSelected = fieldSelector !== undefined;
    // What makeInformer builds, typed as itself: the list's resourceVersion is needed (latestResourceVersion).
    // With a field selector a run that stops matching it (finishes) comes as a delete and leaves the cache.
    this.informer = new ListWatch<KubernetesObject>(api.path, new Watch(kc), () => api.list(undefined, fieldSelector) as never, false, undefined, fieldSelector);
    this.informer.on('add', (o) => this.saw('add', o as DagRunObject));
    this.informer.on('update', (o) => this.saw('update', o as DagRunObject));
    this.informer.on('delete', (o) => this.sawDeleted(o as DagRunObject));
    this.informer.on('error', () => this.failed());
    void this.start();
  }

  /** Resolves true once synced, false after `timeoutMs` or close. */
  async whenSynced(timeoutMs = 30_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.synced && !this.closed && Date.now() < deadline) await this.nextEvent(deadline - Date.now());
    return this.synced;
  }

  /** Every change the watch delivers (after a relist, the differences). Returns the unsubscribe. */
  onEvent(fn: (type: RunCacheEvent, o: DagRunObject) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(type: RunCacheEvent, o: DagRunObject): void {
    for (const fn of this.listeners) fn(type, o);
  }

  /** This instance wrote `o` (create, status write, patch). */
  noteWrite(o: DagRunObject): void {
    // Selected by a field: a write to a run outside the selection (finished before, and still) makes no
    // event at all, so waiting for its version would wait in vain.
    if (this.fieldSelected && isFinished(o) && !this.informer.get(o.metadata.name, o.metadata.namespace)) return;
    const v = version(o.metadata.resourceVersion);
    if (v > this.wrote) this.wrote = v;
  }

  /** Reads from now on include `rv` (another process's write, passed on): objects() waits for it too. */
  expect(rv: string): void {
    const v = version(rv);
    if (v > this.wrote) this.wrote = v;
  }

  /** The highest resourceVersion this instance wrote or was told to expect ('0' for none). */
  written(): string {
    return this.wrote.toString();
  }

  /** This instance deleted the run `name` whose uid was `uid`. */
  noteDelete(name: string, uid: string): void {
    this.gone.delete(name);
    this.gone.set(name, uid);
    if (this.gone.size > MAX_GONE) this.gone.delete(this.gone.keys().next().value as string);
  }

  /** The cached runs, including this instance's own writes; undefined when the cache cannot answer (LIST instead). */
  async objects(): Promise<DagRunObject[] | undefined> {
    if (!(await this.caughtUp())) return undefined;
    const all = this.informer.list() as DagRunObject[];
    return this.gone.size === 0 ? all : all.filter((o) => this.gone.get(o.metadata.name) !== o.metadata.uid);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.synced = false;
    clearTimeout(this.restart);
    await this.informer.stop();
    this.wake();
  }

  private async start(): Promise<void> {
    this.failedSinceStart = false;
    try {
      await this.informer.start();
    } catch {
      this.failed();
    }
    // Closed while listing: the informer opened its watch all the same.
    if (this.closed) await this.informer.stop();
    if (this.closed || this.failedSinceStart) return;
    this.bump(this.informer.latestResourceVersion());
    this.synced = true;
    this.backoffMs = 0;
    this.wake();
  }

  /** A failed list or watch: the informer stops; start again after a growing pause. */
  private failed(): void {
    this.synced = false;
    this.failedSinceStart = true;
    if (this.closed) return;
    this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 250), MAX_BACKOFF_MS);
    clearTimeout(this.restart);
    this.restart = setTimeout(() => void this.start(), this.backoffMs);
  }

  private async caughtUp(): Promise<boolean> {
    const deadline = Date.now() + this.catchUpMs;
    for (;;) {
      // The list's version too: after a relist (the watch's version expired) no event may follow.
      this.bump(this.informer.latestResourceVersion());
      if (!this.synced || this.seen >= this.wrote) break;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.nextEvent(left);
    }
    return this.synced;
  }

  private saw(type: RunCacheEvent, o: DagRunObject): void {
    this.bump(o.metadata.resourceVersion);
    this.emit(type, o);
    slim(o, this.slimFinished);
  }

  private sawDeleted(o: DagRunObject): void {
    if (this.gone.get(o.metadata.name) === o.metadata.uid) this.gone.delete(o.metadata.name);
    this.bump(o.metadata.resourceVersion);
    this.emit('delete', o);
  }

  private bump(rv: string | undefined): void {
    const v = version(rv);
    if (v <= this.seen) return;
    this.seen = v;
    this.wake();
  }

  private nextEvent(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.wakers.add(done);
    });
  }

  private wake(): void {
    for (const w of [...this.wakers]) w();
  }
}

/** What the operator's field selector (status.phase) sees as finished. */
export const FINISHED_PHASES: ReadonlySet<string> = new Set(Object.values(RunStatus).filter((s): s is RunStatus => typeof s === 'number' && isRunTerminal(s)).map(runStatusLabel));
const isFinished = (o: DagRunObject): boolean => FINISHED_PHASES.has(o.status?.phase ?? '');

/**
 * Trims a cached object in place (the informer keeps this very object): the managed fields always (the
 * write time is in status.writtenAt), and with `finished` a finished run's definition and node records.
 */
function slim(o: DagRunObject, finished: boolean): void {
  if (o.status?.writtenAt) delete o.metadata.managedFields;
  const run = o.status?.run;
  if (!finished || !o.spec || !run || !isRunTerminal(run.status)) return;
  const def = o.spec.definition;
  o.spec.definition = { name: def.name, steps: [], tags: def.tags, maxActiveRuns: def.maxActiveRuns } as unknown as typeof def;
  o.spec.localDags = {};
  o.status!.run = { ...run, nodes: [], handlers: [], variables: {}, outputs: {} };
}
