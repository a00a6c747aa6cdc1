/** Starting runs from the API, the scheduler and webhooks (SPEC 4.4, 3.3). */
import type { LoadedDag } from '../../core/ports/engine-ports.js';
import type { RunTrigger } from '../../core/resources.js';
import type { ErrorCode } from '../../core/errors.js';

export interface LaunchOptions {
  params?: string;
  dagRunId?: string;
  /** Overrides the DAG name used for identity (maxActiveRuns, queues, history). */
  dagName?: string;
  /** Refuse (409) when a run of this DAG is active (and, for enqueue, queued). */
  singleton?: boolean;
  /** Queue override for enqueue. */
  queue?: string;
  trigger: RunTrigger;
  /** Extra built-in variables, e.g. WEBHOOK_PAYLOAD. */
  extraEnv?: Record<string, string>;
  /** Working directory for DAGs without a file (inline specs). */
  defaultWorkingDir?: string;
}

export interface Launched {
  dagRunId: string;
  dagName: string;
}

/** How a start is admitted: the public options plus the stricter rules of some endpoints. */
export interface AdmitOptions extends LaunchOptions {
  /** Also refuse when maxActiveRuns is reached (inline runs, reference behaviour). */
  capacity?: boolean;
  /** Error code of a refusal (default already_running). */
  conflictCode?: ErrorCode;
}

export interface RunLauncher {
  /** Starts a run now (driven in the background). */
  start(dag: LoadedDag, o: AdmitOptions): Promise<Launched>;
  /** Puts a run in its queue (status queued); the queue processor starts it later. */
  enqueue(dag: LoadedDag, o: AdmitOptions): Promise<Launched>;
}
