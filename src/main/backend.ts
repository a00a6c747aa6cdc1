/**
 * A backend: where state lives and who runs the steps. The server is wired from one, whichever it is
 * (ARCHITECTURE "The two backends"): the engine's ports, the DAG store, the auth and webhook records.
 */
import type { DagDefinition } from '../core/spec/types.js';
import type { StoredApiKey, StoredUser } from '../core/ports/auth-stores.js';
import type { DagStore } from '../core/ports/dag-store.js';
import type { RecordCollection } from '../core/ports/records.js';
import type { StoredWebhook } from '../core/ports/webhook-store.js';
import type { EngineDeps } from '../engine/deps.js';

/** A worker as the backend knows it: a Node, its heartbeat and the steps running on it. */
export interface BackendWorker {
  id: string;
  labels: Record<string, string>;
  /** Last heartbeat (RFC 3339); undefined: never. */
  heartbeatAt?: string;
  /** The runs of the steps running there, and since when. */
  running: Array<{ dagName: string; dagRunId: string; startedAt: string }>;
}

export interface Backend {
  name: 'embedded' | 'kubernetes';
  engine: EngineDeps;
  dags: DagStore;
  records: {
    users: RecordCollection<StoredUser>;
    apiKeys: RecordCollection<StoredApiKey>;
    webhooks: RecordCollection<StoredWebhook>;
  };
  /**
   * Whether this process drives the runs it admits, takes over orphaned ones, and runs the queue
   * processor and the scheduler (embedded). On kubernetes the operator does all of that: the API
   * server only creates and reads resources.
   */
  drives: boolean;
  /** What this backend cannot run, for a DAG the spec's rules accept (kubernetes: a status over a DagRun's budget). */
  dagLimits?(def: DagDefinition): string | undefined;
  /** The kubernetes backend's namespace. */
  namespace?: string;
  /** Where steps run, when that is not this process (kubernetes: the Nodes). */
  workers?(): Promise<BackendWorker[]>;
  /** Why the backend cannot hold state right now (GET /health), or undefined. */
  problem(): Promise<string | undefined>;
  close(): Promise<void>;
}
