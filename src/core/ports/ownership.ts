import type { RunKey } from './run-store.js';

/**
 * Who drives a run: at most one owner at a time (embedded: a lock file beside the run; Kubernetes: a
 * Lease). The owner is the one writer of the run's status; an owner that died leaves its claim behind,
 * `gone`, and anyone may take the run over.
 * - acquire takes an unowned run, or one whose owner is gone; true when this process owns it now (also
 *   when it already did); false while another live owner holds it. Two racing acquires: one wins.
 * - release gives up this process's claim (no-op when it holds none).
 */
export type OwnerState = 'none' | 'mine' | 'live' | 'gone';

export interface Ownership {
  acquire(key: RunKey): Promise<boolean>;
  release(key: RunKey): Promise<void>;
  state(key: RunKey): Promise<OwnerState>;
  /** Who holds (or held) the run, for people ("process 1234"); undefined when nobody. */
  holder(key: RunKey): Promise<string | undefined>;
}
