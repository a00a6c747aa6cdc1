/**
 * The queue processor (SPEC 3.3, reference 9): starts queued runs (status 5) in FIFO order of queuedAt
 * under each queue's concurrency. A run belongs to the named global queue of its `queue` (config
 * `queues`, with that queue's maxActiveRuns) or else to its DAG's own queue (the DAG's maxActiveRuns,
 * -1 unlimited). A named queue that the configuration does not define has concurrency 1.
 *
 * Event-driven: it keeps an index of the non-terminal runs it knows, updated from every saved run
 * change and every created run, and re-plans on each change; a slow safety tick re-reads the store.
 * A queued run is claimed with compare-and-swap on its resourceVersion before it is driven, so no run
 * starts twice, even when a restarted server and a stale view race.
 */
import type { RunKey } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import { RunStatus, isRunTerminal } from '../../core/run/status.js';
import type { EngineDeps } from '../deps.js';
import { ConflictError } from '../../core/errors.js';
import type { LaunchService } from './launch-service.js';
import { listUnfinished, runKeyOf, runKeyText } from '../../core/ports/run-store.js';

export interface QueueConfig {
  name: string;
  maxActiveRuns: number;
}

interface Entry {
  key: RunKey;
  queue: string;
  limit: number;
  queuedAt: string;
  queued: boolean;
  /** Index generation it was last seen in (a reconcile drops older entries the store no longer has). */
  gen: number;
}

export interface QueueSnapshot {
  name: string;
  maxActiveRuns: number;
  running: RunKey[];
  queued: RunKey[];
}


export class QueueProcessor {
  private readonly entries = new Map<string, Entry>();
  private readonly named: Map<string, number>;
  private gen = 0;
  private busy = false;
  private again = false;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: Pick<EngineDeps, 'store' | 'log' | 'ownership' | 'clock'>,
    private readonly launcher: LaunchService,
    queues: QueueConfig[],
    private readonly safetyTickMs = 30_000,
  ) {
    this.named = new Map(queues.map((q) => [q.name, q.maxActiveRuns]));
  }

  /** `beforeTick`: work done at every safety tick before the index is rebuilt (orphan takeover). */
  async start(beforeTick: () => Promise<unknown> = async () => undefined): Promise<void> {
    this.stopped = false;
    await this.reconcile();
    const tick = () => beforeTick().then(() => this.reconcile());
    this.timer = setInterval(() => void tick().catch((e: unknown) => this.deps.log.warn('Queue reconcile failed', { error: String(e) })), this.safetyTickMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  /** Every saved or created run: keeps the index and re-plans when a slot may have opened. */
  observe(run: DagRunResource): void {
    const k = runKeyText(runKeyOf(run));
    const status = run.status.run.status;
    if (isRunTerminal(status)) {
      if (this.entries.delete(k)) this.wake();
      return;
    }
    const had = this.entries.get(k);
    const queued = status === RunStatus.Queued && !(had && !had.queued);
    this.entries.set(k, { ...this.place(run), queued, gen: this.gen });
    if (queued && !had) this.wake();
  }

  /** The queues as they stand (running and queued runs in order). */
  snapshot(): QueueSnapshot[] {
    const out = new Map<string, QueueSnapshot>();
    for (const e of this.sorted()) {
      const q = out.get(e.queue) ?? { name: e.queue, maxActiveRuns: e.limit, running: [], queued: [] };
      (e.queued ? q.queued : q.running).push(e.key);
      out.set(e.queue, q);
    }
    return [...out.values()];
  }

  wake(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    void this.loop().finally(() => { this.busy = false; });
  }

  /** Rebuilds the index from the store (start, safety tick). */
  async reconcile(): Promise<void> {
    const listedGen = this.gen++;
    const runs = await listUnfinished(this.deps.store);
    for (const r of runs) {
      const k = runKeyText(runKeyOf(r));
      const had = this.entries.get(k);
      // A run claimed here but not being driven (its driver failed before starting it) is queued again.
      const claimedAndDriven = had && !had.queued && this.launcher.isDriving(runKeyOf(r));
      const queued = r.status.run.status === RunStatus.Queued && !claimedAndDriven;
      this.entries.set(k, { ...this.place(r), queued, gen: this.gen });
    }
    // Entries the listing did not show and nothing touched since it began are gone (finished elsewhere).
    for (const [k, e] of this.entries) if (e.gen <= listedGen) this.entries.delete(k);
    this.wake();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass();
      } catch (e) {
        this.deps.log.warn('Queue pass failed', { error: e instanceof Error ? e.message : String(e) });
      }
    } while (this.again && !this.stopped);
  }

  /** One planning pass: for every queue, start the oldest queued runs while slots are free. */
  private async pass(): Promise<void> {
    const byQueue = new Map<string, Entry[]>();
    for (const e of this.sorted()) byQueue.set(e.queue, [...(byQueue.get(e.queue) ?? []), e]);
    for (const entries of byQueue.values()) {
      const waiting = entries.filter((e) => e.queued);
      if (waiting.length === 0) continue;
      const limit = waiting[0]!.limit;
      let free = limit < 0 ? Infinity : Math.max(1, limit) - (entries.length - waiting.length);
      for (const e of waiting) {
        if (free <= 0 || this.stopped) break;
        if (await this.claim(e)) free -= 1;
      }
    }
  }

  /**
   * Claiming a queued run: its ownership, then its status from queued to not started by compare-and-swap
   * (a dequeue that came first makes it conflict; one that comes later finds it no longer queued).
   */
  private async claim(e: Entry): Promise<boolean> {
    const k = runKeyText(e.key);
    const run = await this.deps.store.get(e.key);
    if (!run || run.status.run.status !== RunStatus.Queued) {
      if (!run || isRunTerminal(run.status.run.status)) this.entries.delete(k);
      else e.queued = false;
      return false;
    }
    if (!(await this.deps.ownership.acquire(e.key))) return false;
    try {
      await this.deps.store.updateStatus(e.key, run.metadata.resourceVersion, { ...run.status, run: { ...run.status.run, status: RunStatus.NotStarted } });
    } catch (err) {
      await this.deps.ownership.release(e.key);
      if (err instanceof ConflictError) return false;
      throw err;
    }
    e.queued = false;
    this.deps.log.info('Dequeued dag-run to start', { dag: e.key.dagName, dagRunId: e.key.dagRunId, queue: e.queue });
    this.launcher.drive(e.key);
    return true;
  }

  /** Which queue a run waits in, and that queue's concurrency. */
  private place(run: DagRunResource): Omit<Entry, 'queued' | 'gen'> {
    const key = runKeyOf(run);
    const q = run.spec.queue;
    const queuedAt = run.status.queuedAt || run.metadata.creationTimestamp;
    if (q) return { key, queue: q, limit: this.named.get(q) ?? 1, queuedAt };
    return { key, queue: run.spec.dagName, limit: run.spec.definition.maxActiveRuns, queuedAt };
  }

  private sorted(): Entry[] {
    return [...this.entries.values()].sort((a, b) => a.queuedAt.localeCompare(b.queuedAt) || a.key.dagRunId.localeCompare(b.key.dagRunId));
  }
}
