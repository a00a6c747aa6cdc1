import type { DagSource, EngineLogger, SecretProvider } from '../core/ports/engine-ports.js';
import type { LogStore } from '../core/ports/log-store.js';
import type { Clock, IdGen } from '../core/ports/clock.js';
import type { Launcher } from '../core/ports/executor.js';
import type { RunStore } from '../core/ports/run-store.js';
import type { RunControls } from '../core/ports/run-controls.js';
import type { RunEvents } from '../core/ports/run-events.js';
import type { Ownership } from '../core/ports/ownership.js';
import type { Notifier } from '../core/ports/notifier.js';
import type { RunTracer } from '../core/ports/run-tracer.js';
import type { AdmissionLock } from '../core/ports/admission.js';
import type { DagRunResource } from '../core/resources.js';

/** Everything the engine needs, as ports; main/ wires the adapters of one backend. */
export interface EngineDeps {
  store: RunStore;
  logs: LogStore;
  /** Executors by step type; `shell` is required: it also runs the engine's probes (engine/run/probes.ts). */
  launchers: Partial<Record<string, Launcher>>;
  secrets: SecretProvider;
  dags: DagSource;
  clock: Clock;
  ids: IdGen;
  log: EngineLogger;
  /** The service's own environment (config reads it; the engine filters it for steps). */
  systemEnv: Record<string, string>;
  /** The service's working directory: where runs that come from no file and name no directory run. */
  cwd: string;
  /** Default shell argv, e.g. ['/bin/sh']; `-e` is appended for sh-like shells (SPEC 2.2). */
  defaultShell: string[];
  /** Approval requests to running drivers (SPEC 3.3); without it approvals are not available. */
  controls?: RunControls;
  /** Minimum spacing of a driver's status writes (ms, default 50; StatusWriter). */
  statusIntervalMs?: number;
  /** Wakes a run's driver when a stop or approval request is recorded (by any process). */
  events: RunEvents;
  /** How often a driver reads its requests even without a notification (ms, default 10 s): lost notifications. */
  resyncMs?: number;
  /**
   * Whether a run reads `.env` when its DAG lists no dotenv file (SPEC 2.2 default; true). The operator
   * says false: there it costs a Pod per run, for a file an image seldom holds. Listed files are read.
   */
  implicitDotenv?: boolean;
  /** How deep sub-DAG calls may nest (SVC_MAX_CALL_DEPTH; default core's DEFAULT_MAX_CALL_DEPTH). */
  maxCallDepth?: number;
  /** Delivers the runs' notification mails (SPEC 2.2 mailOn, step mailOnError); without it none are sent. */
  notifier?: Notifier;
  /** How long one notification may take before it is given up (ms, default 30 s; run/notify.ts). */
  notifyTimeoutMs?: number;
  /** Exports the spans of runs whose DAG enables `otel` (SPEC 2.2; run/tracing.ts); without it none are. */
  tracer?: RunTracer;
  /**
   * Serialises singleton and maxActiveRuns admissions across processes (API replicas over one
   * namespace); without it they are serialised within this process only.
   */
  admission?: AdmissionLock;
  /** Who drives which run: one owner at a time; a crashed owner's runs are taken over. */
  ownership: Ownership;
  /** Called after every saved change of a run (API caches, watchers, metrics). */
  onChange?: (run: DagRunResource) => void;
  /**
   * Called with every state a driver reaches, before it is saved (status is written behind, and a
   * state replaced before its turn is never saved): the foreground progress display.
   */
  onState?: (run: DagRunResource) => void;
}
