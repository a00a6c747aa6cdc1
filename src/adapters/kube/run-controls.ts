/**
 * KubeRunControls: the RunControls port over the DagRun custom resource. The requests are the list
 * spec.controls (crds.ts), outside the status the driver owns, like spec.stopRequested.
 *
 * - push and ack read the object, change the list and write it back with compare-and-swap: a JSON
 *   merge patch replaces a list whole, so it carries metadata.resourceVersion and the API server refuses
 *   it (409) when the object moved since the read; the write is then retried on a fresh read. Without
 *   the check, two pushes at once would lose one.
 * - The list is in arrival order (the order of the successful writes), and each id sorts after the one
 *   before it even when API replicas' clocks differ: it is made from the list it is appended to.
 * - The status subresource is on, so each write bumps metadata.generation: the operator wakes the run's
 *   driver on that (KubeRunStore.subscribe, `specChanged`).
 * - pending is one GET. A run that does not exist has no requests; ack of it is a no-op.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { ControlObservation, ControlRequest, RunControls } from '../../core/ports/run-controls.js';
import type { RunKey } from '../../core/ports/run-store.js';
import { CustomResources } from './client.js';
import { DAG_RUN_PLURAL } from './run-api.js';
import { isComplete, objectName, type DagRunObject } from './run-mapping.js';

/**
 * Writes tried after a conflict. Each conflict means another write to the run landed meanwhile, so a
 * push among n concurrent ones needs at most n - 1 retries; approvals come one by one from people.
 */
const CAS_RETRIES = 16;
/** Upper bound of the random pause before a retry (ms, times the attempt), so racers spread out. */
const BACKOFF_MS = 5;

const ID = /^([0-9a-z]{1,12})-([0-9a-z]{1,8})-[0-9a-f]{8}$/;

/**
 * `<time>-<seq>-<random>`, base 36, fixed widths, so ids sort as the list is ordered: the time is
 * `now`, or the previous id's time when that is later (another replica's clock), then seq counts up.
 */
export function nextId(previous: string | undefined, now: number): string {
  const m = previous ? ID.exec(previous) : null;
  const lastTime = m ? parseInt(m[1]!, 36) : -1;
  const time = Math.max(now, lastTime);
  const seq = time === lastTime ? parseInt(m![2]!, 36) + 1 : 0;
  return `${time.toString(36).padStart(10, '0')}-${seq.toString(36).padStart(4, '0')}-${randomBytes(4).toString('hex')}`;
}

const isRequest = (r: unknown): r is ControlRequest =>
  typeof r === 'object' && r !== null && typeof (r as ControlRequest).id === 'string'
  && typeof (r as ControlRequest).observation === 'object' && (r as ControlRequest).observation !== null;

export class KubeRunControls implements RunControls {
  private readonly runs: CustomResources<DagRunObject>;
  private readonly now: () => number;

  /** `now`: the time in request ids (default the system clock). */
  constructor(kc: KubeConfig, readonly namespace: string, opts: { now?: () => number } = {}) {
    this.runs = new CustomResources<DagRunObject>(kc, namespace, DAG_RUN_PLURAL);
    this.now = opts.now ?? (() => Date.now());
  }

  async push(key: RunKey, observation: ControlObservation): Promise<ControlRequest> {
    const name = objectName(key);
    let req: ControlRequest | undefined;
    await this.update(name, (o) => {
      // The run store's view: a half-written object (no status yet) is no run either.
      if (!o || !isComplete(o)) throw new NotFoundError(`dag-run ${key.dagRunId} of DAG ${key.dagName} not found`, { ...key });
      const list = o.spec?.controls ?? [];
      req = { id: nextId(list.at(-1)?.id, this.now()), observation };
      return [...list, req];
    });
    return req!;
  }

  async pending(key: RunKey): Promise<ControlRequest[]> {
    const o = await this.runs.get(objectName(key));
    return (o?.spec?.controls ?? []).filter(isRequest);
  }

  async ack(key: RunKey, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const done = new Set(ids);
    await this.update(objectName(key), (o) => {
      const list = o?.spec?.controls ?? [];
      const left = list.filter((r) => !done.has(r.id));
      return left.length === list.length ? undefined : left;
    });
  }

  /**
   * Read-modify-write of spec.controls with compare-and-swap on the resourceVersion read. `change` gets
   * the object (undefined: none) and returns the new list, or undefined for no write.
   */
  private async update(name: string, change: (o: DagRunObject | undefined) => ControlRequest[] | undefined): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const o = await this.runs.get(name);
      const list = change(o);
      if (!o || !list) return;
      const patch = { metadata: { resourceVersion: o.metadata.resourceVersion }, spec: { controls: list.length > 0 ? list : null } };
      try {
        await this.runs.mergePatch(name, patch);
        return;
      } catch (e) {
        // NotFound: deleted since the read; the next read says so (push: NotFoundError, ack: nothing to do).
        if (!(e instanceof ConflictError || e instanceof NotFoundError) || attempt >= CAS_RETRIES) throw e;
        await sleep(Math.random() * BACKOFF_MS * (attempt + 1));
      }
    }
  }
}
