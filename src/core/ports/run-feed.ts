import type { DagRunResource } from '../resources.js';

/**
 * Saved changes of every run, whoever saved them: the live views of the API (server-sent events) read
 * it. Embedded: the run store's files, which other processes (a foreground `svc start`, a second
 * server) write too; Kubernetes: the DagRun watch, as the operator drives the runs.
 *
 * Level-triggered and at least once: rapid changes of a run may arrive as the latest of them only, a
 * state may arrive twice, but never an older state of a run after a newer one (resourceVersion order).
 */
export interface RunFeed {
  /** Calls fn with each run change from now on; returns the unsubscribe. */
  subscribe(fn: (run: DagRunResource) => void): () => void;
  /**
   * Resolves once every change from now on reaches the subscribers (embedded: the watches are in
   * place). A reader that subscribes, awaits this and then reads the store misses nothing.
   */
  ready(): Promise<void>;
}
