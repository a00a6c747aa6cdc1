/**
 * Control requests (approvals) and run events in memory, for engine unit tests: a push, or a stop
 * recorded by MemoryRunStore (its onStop hook), wakes the run's watchers at once.
 */
import { NotFoundError } from '../../../core/errors.js';
import type { ControlObservation, ControlRequest, RunControls } from '../../../core/ports/run-controls.js';
import type { RunEvents } from '../../../core/ports/run-events.js';
import { runKeyText, type RunKey } from '../../../core/ports/run-store.js';


export class MemoryRequests implements RunControls, RunEvents {
  private readonly pendingByRun = new Map<string, ControlRequest[]>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private seq = 0;

  /** `exists`: whether the run exists (push of an unknown run is NotFoundError). */
  constructor(private readonly exists: (key: RunKey) => Promise<boolean>) {}

  async push(key: RunKey, observation: ControlObservation): Promise<ControlRequest> {
    if (!(await this.exists(key))) throw new NotFoundError(`dag-run ${key.dagRunId} of DAG ${key.dagName} not found`);
    const req: ControlRequest = { id: (this.seq++).toString(36).padStart(8, '0'), observation };
    const list = this.pendingByRun.get(runKeyText(key)) ?? [];
    list.push(req);
    this.pendingByRun.set(runKeyText(key), list);
    this.notify(key);
    return req;
  }

  async pending(key: RunKey): Promise<ControlRequest[]> {
    return [...(this.pendingByRun.get(runKeyText(key)) ?? [])];
  }

  async ack(key: RunKey, ids: string[]): Promise<void> {
    const left = (this.pendingByRun.get(runKeyText(key)) ?? []).filter((r) => !ids.includes(r.id));
    this.pendingByRun.set(runKeyText(key), left);
  }

  watch(key: RunKey, wake: () => void): () => void {
    const set = this.watchers.get(runKeyText(key)) ?? new Set();
    set.add(wake);
    this.watchers.set(runKeyText(key), set);
    return () => { set.delete(wake); };
  }

  /** Wakes the run's watchers (a stop was recorded). */
  notify(key: RunKey): void {
    for (const wake of this.watchers.get(runKeyText(key)) ?? []) queueMicrotask(wake);
  }
}
