/**
 * What the API (and the CLI) call on the engine's services: interfaces, so callers depend on these and
 * not on the classes that implement them (one implementation today, shared by both backends).
 */
import type { RunKey, RunPosition } from '../../core/ports/run-store.js';
import type { ControlObservation } from '../../core/ports/run-controls.js';
import type { DagRunResource } from '../../core/resources.js';
import type { NodeStatus, RunStatus } from '../../core/run/status.js';
import type { TagFilter } from '../../core/spec/tags.js';
import type { DagDefinition } from '../../core/spec/types.js';
import type { OutputsBody } from '../run/finish.js';
import type { DagCatalog } from './catalog.js';
import type { DagEntry } from './dag-catalog.js';
import type { AdmitOptions, Launched, LaunchOptions, RunLauncher } from './launcher.js';
import type { RunSummary } from './presenter.js';

export type { AdmitOptions, DagCatalog, DagEntry, Launched, LaunchOptions, RunLauncher, RunSummary, OutputsBody };

/** One run by key (`latest` allowed) and its stop (SPEC 4.5). */
export interface RunsApi {
  /** NotFoundError when absent. */
  get(key: RunKey): Promise<DagRunResource>;
  /** DomainError not_running when the run is neither running nor just started (queued, finished). */
  stop(key: RunKey): Promise<void>;
}

/** Decisions of SPEC 3.3 on a run: what an approval call answers. */
export interface ApprovalDecision {
  dagRunId: string;
  stepName: string;
  status: number;
  statusLabel: string;
}

/** Run management beyond start and stop (SPEC 4.5, 3.3). */
export interface RunManagementApi {
  dequeue(key: RunKey): Promise<DagRunResource>;
  retry(key: RunKey, o: { dagRunId?: string; stepName?: string }): Promise<DagRunResource>;
  reschedule(key: RunKey, o: { dagRunId?: string; dagName?: string }): Promise<{ dagRunId: string; queued: boolean }>;
  patchStepStatus(key: RunKey, stepName: string, status: NodeStatus): Promise<DagRunResource>;
  decideApproval(key: RunKey, stepName: string, obs: ControlObservation): Promise<ApprovalDecision>;
}

export interface RunFilter {
  name?: string;
  status?: RunStatus;
  /** Unix milliseconds, inclusive bounds on the run's start (its queue or creation time before it starts). */
  fromMs?: number;
  toMs?: number;
  /** Substring of the run id. */
  dagRunId?: string;
  tags?: TagFilter;
  /** At most this many runs (a page); without it, every run the filter keeps. */
  limit?: number;
  /** Only runs after this place in the list (the `next` of the previous page). */
  after?: RunPosition;
}

/** A list of run summaries; `next` is where the following page starts (undefined: this was the last). */
export interface RunPage {
  dagRuns: RunSummary[];
  next?: RunPosition;
}

export interface SubRunSummary extends RunSummary {
  /** The step of the parent run that started it. */
  stepName: string;
}

/** The read side of runs (SPEC 4.5): listings, outputs, sub-DAG runs. */
export interface RunQueriesApi {
  list(f: RunFilter): Promise<RunPage>;
  outputs(key: RunKey): Promise<OutputsBody>;
  subRuns(key: RunKey): Promise<SubRunSummary[]>;
  subRunSpec(key: RunKey, subDagRunId: string): Promise<{ dagRunId: string; name: string; spec: string; dag: DagDefinition }>;
}

/** Waiting for a run to reach a state (start-sync, approvals). */
export interface RunWaitApi {
  /** The run once pred holds, or undefined when timeoutMs elapsed first (or the run vanished). */
  until(key: RunKey, pred: (run: DagRunResource) => boolean, timeoutMs: number): Promise<DagRunResource | undefined>;
}

export interface SearchMatch { line: string; lineNumber: number; startLine: number }

/** DAG management (SPEC 4.3). */
export interface DagsApi {
  readonly catalog: { get(fileName: string): Promise<DagEntry>; list(): Promise<{ entries: DagEntry[]; errors: string[] }> };
  create(name: unknown, spec: unknown): Promise<string>;
  putSpec(fileName: string, spec: unknown): Promise<string[]>;
  delete(fileName: string): Promise<void>;
  rename(fileName: string, newFileName: unknown): Promise<void>;
  suspend(fileName: string, suspend: unknown): Promise<void>;
  validate(spec: unknown, name: unknown): Promise<{ valid: boolean; errors: string[]; dag: DagDefinition | undefined }>;
  search(q: string): Promise<{ results: Array<{ entry: DagEntry; matches: SearchMatch[] }>; errors: string[] }>;
  tags(): Promise<{ tags: string[]; errors: string[] }>;
}

/** The runs of one DAG (SPEC 4.3 history endpoints). */
export interface DagRunsApi {
  latest(dagName: string): Promise<DagRunResource | undefined>;
  get(dagName: string, dagRunId: string): Promise<DagRunResource>;
  recent(dagName: string, limit?: number): Promise<DagRunResource[]>;
  stopAll(dagName: string): Promise<string[]>;
}
