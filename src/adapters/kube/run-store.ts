/**
 * KubeRunStore: the RunStore port over DagRun custom resources (svc.io/v1alpha1, `dagruns`) in one
 * namespace (ARCHITECTURE "The resource model"). Object names, labels and annotations come from
 * core/naming.ts; the mapping of fields is in run-mapping.ts.
 *
 * - create writes the object, then its status (the status subresource ignores status on create).
 *   Until the status is written the object is half-written: get and list do not show it.
 * - updateStatus is compare-and-swap through the status subresource. A stop request patches spec and so
 *   moves metadata.resourceVersion; the port promises that it does not disturb the driver's CAS, so on a
 *   conflict the status at the caller's version is read back from etcd: when it is the current status
 *   (only spec or metadata moved), the write is retried on the current version. A version older than
 *   etcd's compaction window (5 minutes by default) cannot be read back: the conflict then stands, and
 *   the caller re-reads, as after any conflict.
 * - list answers from a watch-fed cache when `cache` is on and synced (run-cache.ts), else LISTs the
 *   API with label selectors. get and all writes are direct API calls.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { Clock } from '../../core/ports/clock.js';
import { runKeyOf, type RunKey, type RunListFilter, type RunStore } from '../../core/ports/run-store.js';
import type { DagRunResource, DagRunStatus } from '../../core/resources.js';
import { isRunTerminal } from '../../core/run/status.js';
import { CustomResources } from './client.js';
import { DAG_RUN_PLURAL, DagRunApi } from './run-api.js';
import { FINISHED_PHASES, RunCache } from './run-cache.js';
import { selectorOf, selectRuns } from './run-list.js';
import {
  checkDagName, DEFAULT_MAX_STATUS_BYTES, isComplete, newObject, objectName, statusObject, storedStatus, toRun,
  type DagRunObject, type StoredStatus, runRequestOf, type RunRequest,
} from './run-mapping.js';

export interface KubeRunStoreOptions {
  /**
   * Answer list() from a watch on the namespace's DagRuns (default false: every list() LISTs the API).
   * For the API server, where `GET /dag-runs` must not read thousands of objects from etcd each time.
   * `catchUpMs`: how long a list() waits for the watch to deliver this instance's own writes (default 2000).
   * `unfinishedOnly` (the operator): the watch selects runs that have not finished (a field selector on
   * status.phase), so a run leaves memory when it ends; list() answers from the cache only when it asks
   * for an unfinished status, and LISTs the API for anything else (history pruning, the latest run).
   */
  cache?: boolean | { catchUpMs?: number; slimFinished?: boolean; unfinishedOnly?: boolean };
  /** Time of status writes (writtenBefore); default the system clock. */
  clock?: Clock;
  /** Budget of one status as JSON (default 1 MiB): a write over it fails with BadRequestError. */
  maxStatusBytes?: number;
}

/** The field selector of DagRuns that have not finished: every terminal status label excluded. */
export const UNFINISHED_FIELDS = [...FINISHED_PHASES].map((p) => `status.phase!=${p}`).join(',');

/** How often updateStatus retries when only spec or metadata moved under it (stop requests). */
const CAS_RETRIES = 3;

export type RunChange =
  | { type: 'add' | 'update'; name: string; run: DagRunResource; specChanged: boolean }
  | { type: 'delete'; name: string }
  /** A DagRun created with kubectl naming a Dag (spec.dag), not answered yet. */
  | { type: 'request'; name: string; request: RunRequest };

export class KubeRunStore implements RunStore {
  private readonly runs: CustomResources<DagRunObject>;
  private readonly api: DagRunApi;
  private readonly cache: RunCache | undefined;
  private readonly clock: Clock;
  private readonly maxStatusBytes: number;
  private readonly unfinishedOnly: boolean;
  private lastStamp = 0;

  constructor(kc: KubeConfig, readonly namespace: string, opts: KubeRunStoreOptions = {}) {
    this.runs = new CustomResources<DagRunObject>(kc, namespace, DAG_RUN_PLURAL);
    this.api = new DagRunApi(kc, namespace);
    const cache = opts.cache === true ? {} : opts.cache || undefined;
    this.unfinishedOnly = !!cache?.unfinishedOnly;
    this.cache = cache ? new RunCache(kc, this.api, cache.catchUpMs, cache.slimFinished, this.unfinishedOnly ? UNFINISHED_FIELDS : undefined) : undefined;
    this.clock = opts.clock ?? { now: () => Date.now() };
    this.maxStatusBytes = opts.maxStatusBytes ?? DEFAULT_MAX_STATUS_BYTES;
  }

  /** With the cache: resolves true once list() answers from it (false after the timeout, or without one). */
  whenSynced(timeoutMs?: number): Promise<boolean> {
    return this.cache ? this.cache.whenSynced(timeoutMs) : Promise.resolve(false);
  }

  /**
   * With the cache: every run the watch shows created or changed (`specChanged`: its spec moved, i.e. a
   * stop or approval request, not only its status), and deleted. Returns the unsubscribe.
   */
  subscribe(fn: (e: RunChange) => void): () => void {
    if (!this.cache) throw new Error('KubeRunStore.subscribe needs the cache');
    const generations = new Map<string, number>();
    return this.cache.onEvent((type, o) => {
      const name = o.metadata.name;
      const generation = o.metadata.generation ?? 0;
      if (type === 'delete') {
        generations.delete(name);
        // Selected by unfinished phase, a run that ends leaves the watch as a delete of its previous
        // content: read it, and tell its end as the update it was (unless it came back meanwhile).
        if (this.unfinishedOnly) return void this.endOrDelete(name, fn, () => generations.has(name));
        return fn({ type, name });
      }
      const before = generations.get(name);
      generations.set(name, generation);
      if (isComplete(o)) return fn({ type, name, run: toRun(o), specChanged: before !== undefined && generation > before });
      const request = runRequestOf(o);
      if (request) fn({ type: 'request', name, request });
    });
  }

  /**
   * The kubectl run requests the cache holds unanswered: those made before subscribe() (while no operator
   * ran, or before it watched their namespace), whose creation no listener saw.
   */
  async pendingRequests(): Promise<RunRequest[]> {
    const all = (await this.cache?.objects()) ?? [];
    return all.map(runRequestOf).filter((r): r is RunRequest => r !== undefined);
  }

  private async endOrDelete(name: string, fn: (e: RunChange) => void, cameBack: () => boolean): Promise<void> {
    const o = await this.runs.get(name).catch(() => undefined);
    if (cameBack()) return;
    fn(o && isComplete(o) ? { type: 'update', name, run: toRun(o), specChanged: false } : { type: 'delete', name });
  }

  /** Answers a run request: the run started from it, or why none could be (status subresource). */
  async answerRequest(r: RunRequest, answer: { startedRun: string } | { error: string }, now: Date): Promise<void> {
    const ok = 'startedRun' in answer;
    const condition = {
      type: 'Started', status: ok ? 'True' : 'False', reason: ok ? 'RunCreated' : 'CannotStart', lastTransitionTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      message: ok ? `started DagRun ${answer.startedRun}` : answer.error,
    };
    await this.runs.mergePatchStatus(r.name, { metadata: { uid: r.uid }, status: { phase: ok ? 'started' : 'failed', ...(ok ? { startedRun: answer.startedRun } : {}), conditions: [condition] } });
  }

  /** The highest DagRun resourceVersion this store wrote ('0' without a cache: its lists read the API). */
  writtenVersion(): string {
    return this.cache?.written() ?? '0';
  }

  /** Lists include this version from now on: another replica's write, passed on by KubeAdmissionLock. */
  expectVersion(rv: string): void {
    this.cache?.expect(rv);
  }

  /** Stops the watch of the cache; the store still works, listing the API. */
  async close(): Promise<void> {
    await this.cache?.close();
  }

  async create(run: DagRunResource): Promise<DagRunResource> {
    const key = runKeyOf(run);
    const name = objectName(key);
    const status = storedStatus(key, run.status, this.stamp(), this.maxStatusBytes);
    const created = await this.runs.create(newObject(run, await this.ownerOf(run)));
    this.cache?.noteWrite(created);
    const uid = created.metadata.uid ?? '';
    try {
      // Another client (a controller) may have labelled or patched the new object first: fine while it is
      // the same object and still has no status.
      return await this.writeStatus(name, created.metadata.resourceVersion ?? '', status, async () => {
        const now = await this.runs.get(name);
        return now?.metadata.uid === uid && now.status === undefined ? now.metadata.resourceVersion : undefined;
      });
    } catch (e) {
      // Not left half-written, so the run id can be used again (that object only, never a newer one).
      await this.api.delete(name, uid).catch(() => undefined);
      throw e;
    }
  }

  /** The parent run's object, which owns a sub-DAG run (none when it is gone). */
  private async ownerOf(run: DagRunResource): Promise<{ name: string; uid: string } | undefined> {
    const p = run.spec.parent;
    if (!p) return undefined;
    const parent = await this.runs.get(objectName({ dagName: p.name, dagRunId: p.dagRunId }));
    return parent?.metadata.uid ? { name: parent.metadata.name, uid: parent.metadata.uid } : undefined;
  }

  async get(key: RunKey): Promise<DagRunResource | undefined> {
    const o = await this.runs.get(objectName(key));
    return o && isComplete(o) ? toRun(o) : undefined;
  }

  async updateStatus(key: RunKey, resourceVersion: string, status: DagRunStatus): Promise<DagRunResource> {
    const name = objectName(key);
    const stored = storedStatus(key, status, this.stamp(), this.maxStatusBytes);
    if (!resourceVersion) throw new ConflictError(`run ${key.dagName}/${key.dagRunId}: no resourceVersion to compare with`);
    return this.writeStatus(name, resourceVersion, stored, () => this.statusUnchangedSince(name, resourceVersion));
  }

  /**
   * Compare-and-swap of the status on `resourceVersion`. On a conflict, `recheck` says whether the write
   * may go on anyway, on the version it returns (undefined: the conflict stands).
   */
  private async writeStatus(name: string, resourceVersion: string, status: StoredStatus, recheck: () => Promise<string | undefined>): Promise<DagRunResource> {
    for (let version = resourceVersion, retry = 0; ; retry++) {
      try {
        const written = await this.runs.replaceStatus(statusObject(name, version, status));
        this.cache?.noteWrite(written);
        return toRun(written);
      } catch (e) {
        if (!(e instanceof ConflictError) || retry >= CAS_RETRIES) throw e;
        const current = await recheck();
        if (!current) throw e;
        version = current;
      }
    }
  }

  /**
   * The current resourceVersion when the run's status is still the one it had at `resourceVersion` (only
   * spec or metadata changed since, e.g. a stop request); undefined when the status was written since,
   * the run was re-created, or the old version is no longer kept (etcd compaction).
   */
  private async statusUnchangedSince(name: string, resourceVersion: string): Promise<string | undefined> {
    const [then, now] = await Promise.all([this.api.at(name, resourceVersion), this.runs.get(name)]);
    if (!now) throw new NotFoundError(`${DAG_RUN_PLURAL}/${name} not found`);
    if (!then || then.metadata.uid !== now.metadata.uid || !isDeepStrictEqual(then.status, now.status)) return undefined;
    return now.metadata.resourceVersion;
  }

  /**
   * The time of a status write, later than this instance's previous one: a write always changes the
   * stored status, so it always gets a new resourceVersion (the API server keeps the version of a write
   * that changes nothing, and a stale writer holding that version would then win).
   */
  private stamp(): number {
    this.lastStamp = Math.max(this.clock.now(), this.lastStamp + 1);
    return this.lastStamp;
  }

  async list(filter: RunListFilter = {}): Promise<DagRunResource[]> {
    if (filter.dagName !== undefined) checkDagName(filter.dagName);
    if (filter.limit === 0) return [];
    const fromCache = !this.unfinishedOnly || (filter.status !== undefined && !isRunTerminal(filter.status));
    const cached = fromCache ? await this.cache?.objects() : undefined;
    const objects = cached ?? (await this.api.list(selectorOf(filter))).items;
    return selectRuns(objects, filter);
  }

  async delete(key: RunKey): Promise<void> {
    const name = objectName(key);
    const uid = await this.api.delete(name);
    if (uid) this.cache?.noteDelete(name, uid);
  }

  async requestStop(key: RunKey): Promise<void> {
    const patched = await this.runs.mergePatch(objectName(key), { spec: { stopRequested: true } });
    this.cache?.noteWrite(patched);
  }

  async isStopRequested(key: RunKey): Promise<boolean> {
    return (await this.runs.get(objectName(key)))?.spec?.stopRequested === true;
  }

  async clearStop(key: RunKey): Promise<void> {
    try {
      const patched = await this.runs.mergePatch(objectName(key), { spec: { stopRequested: null } });
      this.cache?.noteWrite(patched);
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
    }
  }
}
