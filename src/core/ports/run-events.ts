import type { RunKey } from './run-store.js';

/**
 * Wakes a run's driver when something outside it changed: a stop request or a control request (an
 * approval, SPEC 3.3) recorded by any process. Embedded: file system notifications on the run's
 * directory; Kubernetes: the watch on the DagRun. Level-triggered: a wake-up says "look again", the
 * driver then reads the requests themselves (a spurious wake-up costs one read, a lost one is caught by
 * the driver's slow resync).
 */
export interface RunEvents {
  /** Calls wake after any request recorded for the run from now on; returns the unsubscribe. */
  watch(key: RunKey, wake: () => void): () => void;
}
