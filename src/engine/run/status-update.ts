/** Compare-and-swap of a run's status, retried on a conflict: the one loop every status writer uses. */
import { ConflictError } from '../../core/errors.js';
import type { RunKey, RunStore } from '../../core/ports/run-store.js';
import { runKeyOf } from '../../core/ports/run-store.js';
import type { DagRunResource, DagRunStatus } from '../../core/resources.js';

export interface StatusUpdate {
  /** The new status from the run as read; may throw to refuse (the run is no longer in a fitting state). */
  build(run: DagRunResource): DagRunStatus;
  /** Reads the run again after a conflict (throws, or returns undefined, when it is gone). */
  reread(key: RunKey): Promise<DagRunResource | undefined>;
  /** Attempts in all. */
  tries: number;
}

export async function updateStatus(store: RunStore, first: DagRunResource, u: StatusUpdate): Promise<DagRunResource> {
  let run = first;
  for (let i = 1; ; i++) {
    try {
      return await store.updateStatus(runKeyOf(run), run.metadata.resourceVersion, u.build(run));
    } catch (e) {
      if (!(e instanceof ConflictError) || i >= u.tries) throw e;
      const fresh = await u.reread(runKeyOf(run));
      if (!fresh) throw e;
      run = fresh;
    }
  }
}
