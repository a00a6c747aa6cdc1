import type { DagRunResource, DagRunStatus } from '../resources.js';

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
}

/**
 * Stores DagRun resources. Both backends implement it (files; Kubernetes custom resources).
 * - create fails with AlreadyExistsError when the run id exists for that DAG name;
 * - updateStatus is compare-and-swap on metadata.resourceVersion (ConflictError when it moved);
 *   it replaces status only, like the Kubernetes status subresource;
 * - get returns undefined when absent; list returns newest first (creationTimestamp, then name).
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
