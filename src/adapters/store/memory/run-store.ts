/**
 * The RunStore in memory: the Kubernetes API's semantics without a disk (one resourceVersion sequence
 * for all objects, compare-and-swap, server-set uid and creationTimestamp). For engine unit tests; it
 * passes the same conformance suite as the local and Kubernetes stores.
 */
import { randomUUID } from 'node:crypto';
import { AlreadyExistsError, BadRequestError, ConflictError, NotFoundError } from '../../../core/errors.js';
import type { Clock } from '../../../core/ports/clock.js';
import { runKeyOf, runKeyText, type RunKey, type RunListFilter, type RunStore } from '../../../core/ports/run-store.js';
import { isSafeDagName, isValidRunId, type DagRunResource, type DagRunStatus } from '../../../core/resources.js';
import { runEntryOf, selectRuns } from '../../../core/run/run-list.js';

interface Entry {
  run: DagRunResource;
  writtenAt: number;
  stop: boolean;
}


function check(k: RunKey): string {
  if (!isSafeDagName(k.dagName)) throw new BadRequestError(`invalid DAG name ${JSON.stringify(k.dagName)}`, { dagName: k.dagName });
  if (!isValidRunId(k.dagRunId)) throw new BadRequestError(`invalid dag-run id ${JSON.stringify(k.dagRunId)}`, { dagRunId: k.dagRunId });
  return runKeyText(k);
}

export class MemoryRunStore implements RunStore {
  private readonly runs = new Map<string, Entry>();
  private version = 0n;

  /** `onStop`: told of every stop request (the in-memory RunEvents wake the run's driver). */
  constructor(private readonly clock: Clock = { now: () => Date.now() }, private readonly onStop: (key: RunKey) => void = () => undefined) {}

  async create(run: DagRunResource): Promise<DagRunResource> {
    const k = check(runKeyOf(run));
    if (this.runs.has(k)) throw new AlreadyExistsError(`run ${run.spec.dagName}/${run.spec.dagRunId} already exists`, { ...runKeyOf(run) });
    const now = this.clock.now();
    const stored: DagRunResource = structuredClone({
      ...run,
      metadata: {
        ...run.metadata, uid: randomUUID(), resourceVersion: this.nextVersion(),
        creationTimestamp: run.metadata.creationTimestamp || new Date(now).toISOString(),
        labels: run.metadata.labels ?? {}, annotations: run.metadata.annotations ?? {},
      },
    });
    this.runs.set(k, { run: stored, writtenAt: now, stop: false });
    return structuredClone(stored);
  }

  async get(key: RunKey): Promise<DagRunResource | undefined> {
    const e = this.runs.get(check(key));
    return e && structuredClone(e.run);
  }

  async updateStatus(key: RunKey, resourceVersion: string, status: DagRunStatus): Promise<DagRunResource> {
    const e = this.runs.get(check(key));
    if (!e) throw new NotFoundError(`run ${key.dagName}/${key.dagRunId} not found`);
    if (e.run.metadata.resourceVersion !== resourceVersion) throw new ConflictError(`run ${key.dagName}/${key.dagRunId} was modified`);
    e.run = { ...e.run, metadata: { ...e.run.metadata, resourceVersion: this.nextVersion() }, status: structuredClone(status) };
    e.writtenAt = this.clock.now();
    return structuredClone(e.run);
  }

  async list(f: RunListFilter = {}): Promise<DagRunResource[]> {
    if (f.dagName !== undefined && !isSafeDagName(f.dagName)) throw new BadRequestError(`invalid DAG name ${JSON.stringify(f.dagName)}`);
    const written = [...this.runs.values()].filter((e) => f.writtenBefore === undefined || e.writtenAt <= f.writtenBefore);
    return structuredClone(selectRuns(written, (e) => runEntryOf(e.run), f).map((e) => e.run));
  }

  async delete(key: RunKey): Promise<void> {
    this.runs.delete(check(key));
  }

  async requestStop(key: RunKey): Promise<void> {
    const e = this.runs.get(check(key));
    if (!e) throw new NotFoundError(`run ${key.dagName}/${key.dagRunId} not found`);
    e.stop = true;
    this.onStop(key);
  }

  async isStopRequested(key: RunKey): Promise<boolean> {
    return this.runs.get(check(key))?.stop ?? false;
  }

  async clearStop(key: RunKey): Promise<void> {
    const e = this.runs.get(check(key));
    if (e) e.stop = false;
  }

  private nextVersion(): string {
    this.version += 1n;
    return this.version.toString();
  }
}
