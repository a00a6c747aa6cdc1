/**
 * A snapshot of the run store for scrape-time gauges and the workers endpoint: one listing, shared by
 * every caller within `maxAgeMs` (a burst of scrapes or dashboard polls costs one scan of the store).
 */
import { listUnfinished, runKeyOf, runKeyText, type RunStore } from '../core/ports/run-store.js';
import type { DagRunResource } from '../core/resources.js';
import { isRunActive, RunStatus } from '../core/run/status.js';

export interface CensusSnapshot {
  /** When the listing was taken (ms). */
  at: number;
  /** The unfinished runs (sub-runs included) and the root runs of today (local time). */
  runs: DagRunResource[];
}

/** Local midnight of the day containing `now`: the window of svc_dag_runs_total and of the census. */
export function startOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

export class RunCensus {
  private last?: CensusSnapshot;
  private pending?: Promise<CensusSnapshot>;

  constructor(private readonly store: Pick<RunStore, 'list'>, private readonly now: () => number, private readonly maxAgeMs = 1000) {}

  async snapshot(): Promise<CensusSnapshot> {
    if (this.last && this.now() - this.last.at < this.maxAgeMs) return this.last;
    // What the gauges and the workers endpoint read: the unfinished runs and the roots of today (daily
    // counts), not the whole history.
    this.pending ??= Promise.all([listUnfinished(this.store), this.store.list({ rootOnly: true, fromMs: startOfDay(this.now()) })]).then(([open, recent]) => (this.last = { at: this.now(), runs: unique([...open, ...recent]) })).finally(() => {
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

/** Each run once (a run of today that has not finished is in both lists). */
function unique(runs: DagRunResource[]): DagRunResource[] {
  const byKey = new Map<string, DagRunResource>();
  for (const r of runs) byKey.set(runKeyText(runKeyOf(r)), r);
  return [...byKey.values()];
}
