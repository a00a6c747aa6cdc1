/**
 * A snapshot of the run store for scrape-time gauges and the workers endpoint: one listing, shared by
 * every caller within `maxAgeMs` (a burst of scrapes or dashboard polls costs one scan of the store).
 */
import type { RunStore } from '../core/ports/run-store.js';
import type { DagRunResource } from '../core/resources.js';
import { isRunActive, RunStatus } from '../core/run/status.js';

export interface CensusSnapshot {
  /** When the listing was taken (ms). */
  at: number;
  /** Every run, sub-runs included. */
  runs: DagRunResource[];
}

export class RunCensus {
  private last?: CensusSnapshot;
  private pending?: Promise<CensusSnapshot>;

  constructor(private readonly store: Pick<RunStore, 'list'>, private readonly now: () => number, private readonly maxAgeMs = 1000) {}

  async snapshot(): Promise<CensusSnapshot> {
    if (this.last && this.now() - this.last.at < this.maxAgeMs) return this.last;
    this.pending ??= this.store.list().then((runs) => (this.last = { at: this.now(), runs })).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Runs held by the last snapshot (svc_cache_entries_total{cache="dag_run_status"}). */
  size(): number {
    return this.last?.runs.length ?? 0;
  }
}

export const isActiveRun = (r: DagRunResource): boolean => isRunActive(r.status.run.status);
export const isQueuedRun = (r: DagRunResource): boolean => r.status.run.status === RunStatus.Queued;
export const isRootRun = (r: DagRunResource): boolean => !r.spec.parent;
