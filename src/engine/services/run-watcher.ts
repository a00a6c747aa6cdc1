/**
 * Waiting for a run to reach a state (start-sync, approvals): subscribes to saved run changes first,
 * then reads the current state, so no change between the two is missed. Bounded by a timeout.
 */
import type { RunKey, RunStore } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import type { RunWaitApi } from './api.js';

export type RunChanges = (fn: (run: DagRunResource) => void) => () => void;

export class RunWatcher implements RunWaitApi {
  constructor(private readonly store: Pick<RunStore, 'get'>, private readonly changes: RunChanges) {}

  /** The run once pred holds, or undefined when timeoutMs elapsed first (or the run vanished). */
  until(key: RunKey, pred: (run: DagRunResource) => boolean, timeoutMs: number): Promise<DagRunResource | undefined> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (v: DagRunResource | undefined): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        off();
        resolve(v);
      };
      const off = this.changes((run) => {
        if (run.spec.dagName === key.dagName && run.spec.dagRunId === key.dagRunId && pred(run)) finish(run);
      });
      const timer = setTimeout(() => finish(undefined), Math.max(0, timeoutMs));
      this.store.get(key).then((run) => {
        if (!run) finish(undefined);
        else if (pred(run)) finish(run);
      }, (e: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        off();
        reject(e);
      });
    });
  }
}
