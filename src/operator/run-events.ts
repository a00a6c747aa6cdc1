/**
 * RunEvents on Kubernetes: a run's driver is woken when its DagRun's spec changes (a stop or approval
 * request written by an API replica), as the DagRun watch reports it.
 */
import type { RunEvents } from '../core/ports/run-events.js';
import { runKeyText, type RunKey } from '../core/ports/run-store.js';

export class WatchedRunEvents implements RunEvents {
  private readonly watchers = new Map<string, Set<() => void>>();

  watch(key: RunKey, onEvent: () => void): () => void {
    const k = runKeyText(key);
    const set = this.watchers.get(k) ?? new Set<() => void>();
    set.add(onEvent);
    this.watchers.set(k, set);
    return () => {
      set.delete(onEvent);
      if (set.size === 0) this.watchers.delete(k);
    };
  }

  /** The run's spec changed. */
  notify(key: RunKey): void {
    for (const fn of [...(this.watchers.get(runKeyText(key)) ?? [])]) fn();
  }
}
