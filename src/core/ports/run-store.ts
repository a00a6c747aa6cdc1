import type { DagRunResource, DagRunStatus } from '../resources.js';
import { RunStatus } from '../run/status.js';
import type { TagFilter } from '../spec/tags.js';

export interface RunKey {
  dagName: string;
  dagRunId: string;
}

export const runKeyOf = (run: DagRunResource): RunKey => ({ dagName: run.spec.dagName, dagRunId: run.spec.dagRunId });

/** A run key as one string, for maps and messages (`/` is in neither a valid DAG name nor a run id). */
export const runKeyText = (k: RunKey): string => `${k.dagName}/${k.dagRunId}`;

export interface RunListFilter {
  dagName?: string;
  /** Only root runs (no parent). */
  rootOnly?: boolean;
  /**
   * Only runs whose status was last written at or before this time (ms since the epoch), found without
   * reading the others (history pruning: a run that finished before the time was last written no later
   * than it finished, or was written again since, and then waits for a later pass).
   */
  writtenBefore?: number;
  /** At most this many (the newest), found without reading every run when there are more. */
  limit?: number;
  /*
   * The filters of a run list (SPEC 4.5), decided by core/run/run-list.ts for every adapter: an adapter
   * may narrow with its own index first, never decide differently.
   */
  status?: RunStatus;
  /** Inclusive bounds (ms since the epoch) on the run's time: its start, else its queue time, else its creation. */
  fromMs?: number;
  toMs?: number;
  /** A substring of the run id. */
  dagRunIdContains?: string;
  /** SPEC 2.9 tag filter on the run's definition snapshot. */
  tags?: TagFilter;
  /** Only runs after this position of the list order (a cursor: the last run of the previous page). */
  after?: RunPosition;
}

/**
 * A run's place in list order: newest first by creation time (ms), ties broken by run id, then DAG name
 * (both descending). A run keeps its place for life, so a cursor is stable while runs are added.
 */
export interface RunPosition {
  createdMs: number;
  dagRunId: string;
  dagName: string;
}

/**
 * Stores DagRun resources. Both backends implement it (files; Kubernetes custom resources).
 * - create fails with AlreadyExistsError when the run id exists for that DAG name;
 * - updateStatus is compare-and-swap on metadata.resourceVersion (ConflictError when it moved);
 *   it replaces status only, like the Kubernetes status subresource;
 * - get returns undefined when absent; list returns newest first (RunPosition order), filtered and
 *   paged as core/run/run-list.ts decides.
 */
export interface RunStore {
  create(run: DagRunResource): Promise<DagRunResource>;
  get(key: RunKey): Promise<DagRunResource | undefined>;
  updateStatus(key: RunKey, resourceVersion: string, status: DagRunStatus): Promise<DagRunResource>;
  list(filter?: RunListFilter): Promise<DagRunResource[]>;
  delete(key: RunKey): Promise<void>;
  /** Records a stop request outside the status the driver owns (a spec field in Kubernetes). */
  requestStop(key: RunKey): Promise<void>;
  isStopRequested(key: RunKey): Promise<boolean>;
  /** Forgets a stop request (a retried run starts clean). */
  clearStop?(key: RunKey): Promise<void>;
}

/** The statuses of a run that has not finished: what queues, takeovers and gauges look at. */
export const UNFINISHED_STATUSES: readonly RunStatus[] = [RunStatus.NotStarted, RunStatus.Running, RunStatus.Queued, RunStatus.Waiting];

/**
 * The runs the filter keeps that have not finished, one status-filtered list each (the embedded index and
 * the kubernetes cache answer those without reading the history). A run listed twice (its status moved
 * between two lists) is kept once; one that moved between them the other way is seen on the next call.
 */
export async function listUnfinished(store: Pick<RunStore, 'list'>, filter: Omit<RunListFilter, 'status'> = {}): Promise<DagRunResource[]> {
  const lists = await Promise.all(UNFINISHED_STATUSES.map((status) => store.list({ ...filter, status })));
  const seen = new Set<string>();
  return lists.flat().filter((r) => {
    const k = runKeyText(runKeyOf(r));
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
