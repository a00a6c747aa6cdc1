/**
 * Write-behind of a run's status for its driver. The driver's in-memory state is the truth while it
 * runs; put() hands over each new state and returns at once, a single background writer persists
 * them in order (compare-and-swap, re-applied on a conflict: the driver owns status), and a state
 * that is replaced before its turn is skipped. flush() waits until the newest state is on disk.
 *
 * This is safe for effects whose start is recorded apart from status (a shell step's exec record,
 * written by the step's process before its command runs, makes a second start adopt the first):
 * after a crash the exec records tell what the lagging status does not. The driver flushes before
 * every other effect (see EffectApplier.needsDurableState).
 *
 * Writes are spaced by `statusIntervalMs` (default 50): a run whose steps change state every few
 * milliseconds writes its status (O(steps) to encode) a few dozen times a second instead of once per
 * change, and a reader sees it at most that much behind. The spacing grows to 20 times the last
 * write's duration when that is longer (a run of thousands of steps), so writing stays near 5 % of the
 * driver's time, up to 500 ms; 0 turns spacing off. flush() never waits for the interval.
 */
import type { DagRunResource, DagRunStatus } from '../../core/resources.js';
import type { EngineDeps } from '../deps.js';
import { updateStatus } from './status-update.js';
import { StatusTooLargeError } from '../../core/errors.js';
import { overflowedStatus } from '../../core/run/overflow.js';

const SPACING_FACTOR = 20;
/** However slow the last write was (a stalled loop, retries behind API writes), a reader lags at most this. */
const MAX_SPACING_MS = 500;

/** The wait between two writes: the interval, or 20 times the last write's duration up to 500 ms; 0 = none. */
export function statusSpacingMs(intervalMs: number, lastSaveMs: number): number {
  if (intervalMs <= 0) return 0;
  return Math.max(intervalMs, Math.min(SPACING_FACTOR * lastSaveMs, MAX_SPACING_MS));
}

export class StatusWriter {
  private pending: DagRunStatus | undefined;
  private writing: Promise<void> | undefined;
  private failure: unknown;
  private lastWrite = -Infinity;
  /** How long the last save took (ms): the spacing is at least SPACING_FACTOR times that. */
  private lastSaveMs = 0;
  private urgent = false;
  private wake: (() => void) | undefined;

  constructor(private readonly deps: EngineDeps, private saved: DagRunResource) {}

  /** Throws at once when an earlier write failed (a deleted run, a full disk): the driver stops there. */
  put(status: DagRunStatus): void {
    if (this.failure !== undefined) throw this.failure;
    this.pending = status;
    this.startDrain();
  }

  /**
   * `writing` is cleared once the drain has ended, not inside drain(): a failure before its first await
   * would clear it before the assignment here, and flush() would wait on a settled promise forever. A
   * state put between the drain's end and that moment starts the next drain.
   */
  private startDrain(): void {
    if (this.writing) return;
    const writing = this.drain();
    this.writing = writing;
    void writing.finally(() => {
      if (this.writing !== writing) return;
      this.writing = undefined;
      if (this.pending && this.failure === undefined) this.startDrain();
    });
  }

  /** The saved resource once everything put so far is written; rethrows a failed write. */
  async flush(): Promise<DagRunResource> {
    this.urgent = true;
    this.wake?.();
    while (this.writing) await this.writing;
    this.urgent = false;
    if (this.failure !== undefined) throw this.failure;
    return this.saved;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending && this.failure === undefined) {
        await this.spacing();
        const status = this.pending;
        this.pending = undefined;
        const t0 = this.deps.clock.now();
        this.saved = await this.save(status);
        this.lastSaveMs = this.deps.clock.now() - t0;
        this.deps.onChange?.(this.saved);
      }
    } catch (e) {
      this.failure = e;
    }
  }

  /** Waits out the interval since the last write (at least the current turn: puts of one turn coalesce). */
  private spacing(): Promise<void> {
    const interval = statusSpacingMs(this.deps.statusIntervalMs ?? 50, this.lastSaveMs);
    const wait = this.urgent ? 0 : Math.max(0, this.lastWrite + interval - this.deps.clock.now());
    return new Promise<void>((resolve) => {
      const done = (): void => { clearTimeout(t); this.wake = undefined; resolve(); };
      const t = wait > 0 ? setTimeout(done, wait) : undefined;
      if (!t) setImmediate(done);
      this.wake = done;
    }).then(() => { this.lastWrite = this.deps.clock.now(); });
  }

  /**
   * Another writer touched the object (an API request): re-read, re-apply the driver's status. A status
   * the store cannot hold ends the run failed, saying why (overflowedStatus), and the driver stops.
   */
  private async save(status: DagRunStatus): Promise<DagRunResource> {
    const write = (s: DagRunStatus) => updateStatus(this.deps.store, this.saved, { build: () => s, reread: (k) => this.deps.store.get(k), tries: 7 });
    try {
      return await write(status);
    } catch (e) {
      if (!(e instanceof StatusTooLargeError)) throw e;
      this.saved = await write(overflowedStatus(status, e.message, new Date(this.deps.clock.now()).toISOString()));
      this.deps.onChange?.(this.saved);
      throw e;
    }
  }
}

