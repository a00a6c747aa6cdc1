import type { Observation } from '../run/state.js';
import type { RunKey } from './run-store.js';

/** What a client may ask of a running run besides stopping it: the approval decisions of SPEC 3.3. */
export type ControlObservation = Extract<Observation, { type: 'approve' | 'reject' }>;

export interface ControlRequest {
  /** Unique and ordered by arrival (the order the driver applies them). */
  id: string;
  observation: ControlObservation;
}

/**
 * Requests to a run's driver recorded outside the status the driver owns (like the stop marker; a
 * spec field in Kubernetes). Level-triggered and crash-safe: the driver reads pending requests on each
 * loop turn, feeds them to decide() and acknowledges them only after the resulting state is saved. A
 * request delivered twice (crash between save and ack) is harmless: decide() ignores an approval of a
 * step that no longer waits.
 */
export interface RunControls {
  /** NotFoundError when the run does not exist. */
  push(key: RunKey, observation: ControlObservation): Promise<ControlRequest>;
  pending(key: RunKey): Promise<ControlRequest[]>;
  ack(key: RunKey, ids: string[]): Promise<void>;
}
