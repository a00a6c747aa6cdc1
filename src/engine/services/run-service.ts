/** Run operations over the ports: start, retry, stop, status; the same code for both backends. */
import type { RunsApi } from './api.js';
import type { LoadedDag } from '../../core/ports/engine-ports.js';
import type { RunKey } from '../../core/ports/run-store.js';
import type { DagRunResource, RunTrigger } from '../../core/resources.js';
import { isValidRunId } from '../../core/resources.js';
import { BadRequestError, DomainError, NotFoundError } from '../../core/errors.js';
import { RunStatus, isRunActive, isRunTerminal } from '../../core/run/status.js';
import type { EngineDeps } from '../deps.js';
import { RunDriver } from '../run/driver.js';
import { newRunResource } from '../run/run-factory.js';
import { prepareRetry } from '../run/retry.js';
import { callCycleErrors } from './call-check.js';
import { runKeyOf } from '../../core/ports/run-store.js';

export interface StartOptions {
  params?: string;
  dagRunId?: string;
  dagName?: string;
  trigger?: RunTrigger;
  extraEnv?: Record<string, string>;
  /** Working directory for DAGs that come from no file. */
  defaultWorkingDir?: string;
  /** Queue the run belongs to (named queue); the run is created queued (status 5) when `queued`. */
  queue?: string;
  queued?: boolean;
}

/** History pruning lists a DAG's runs: at most once per DAG per this interval, not on every start. */
const PRUNE_INTERVAL_MS = 60_000;

export class RunService implements RunsApi {
  private readonly driver: RunDriver;
  private readonly pruned = new Map<string, number>();

  constructor(private readonly deps: EngineDeps) {
    this.driver = new RunDriver(deps);
  }

  /** Creates the run resource (not yet driven). */
  async create(dag: LoadedDag, o: StartOptions = {}): Promise<DagRunResource> {
    const errors = dag.errors.length > 0 ? dag.errors : await callCycleErrors(dag, (n) => this.deps.dags.find(n));
    if (errors.length > 0) throw new BadRequestError(`invalid DAG: ${errors.join('; ')}`, { errors });
    const dagRunId = o.dagRunId ?? this.deps.ids.next();
    if (!isValidRunId(dagRunId)) throw new BadRequestError(`invalid dag-run id "${dagRunId}": use letters, digits, _ . - (max 64)`);
    const run = newRunResource(this.deps, {
      definition: dag.definition, localDags: dag.localDags, sourceFile: dag.sourceFile, dagRunId, params: o.params ?? '',
      trigger: o.trigger ?? 'manual', workingDir: o.defaultWorkingDir,
      ...(o.dagName ? { dagName: o.dagName } : {}), ...(o.extraEnv ? { extraEnv: o.extraEnv } : {}),
      ...(o.queue ? { queue: o.queue } : {}), ...(o.queued ? { queued: true } : {}),
    });
    await this.pruneHistory(run, dag.definition.histRetentionDays);
    return this.deps.store.create(run);
  }

  /** Drives a run to its end (the caller decides whether to await it). */
  drive(key: RunKey): Promise<DagRunResource> {
    return this.driver.drive(key);
  }

  /**
   * Takes over a run whose driver died (kill -9, crash): adopts executions still running, marks the
   * others interrupted (their retryPolicy decides), and finishes the run.
   */
  async resume(key: RunKey): Promise<DagRunResource> {
    const run = await this.get(key);
    if (isRunTerminal(run.status.run.status)) return run;
    if (await this.deps.ownership.state(runKeyOf(run)) === 'live') {
      throw new DomainError('already_running', `dag-run ${run.spec.dagRunId} is being driven by ${(await this.deps.ownership.holder(runKeyOf(run))) ?? 'another process'}`);
    }
    return this.drive(runKeyOf(run));
  }

  /**
   * Whether an active run has lost its driver: its owner is gone (Ownership), or it has none (a run an
   * earlier version left running: an active run is always owned by its driver).
   */
  async isOrphaned(run: DagRunResource): Promise<boolean> {
    if (!isRunActive(run.status.run.status)) return false;
    const owner = await this.deps.ownership.state(runKeyOf(run));
    return owner === 'gone' || owner === 'none';
  }

  async get(key: RunKey): Promise<DagRunResource> {
    const run = key.dagRunId === 'latest' ? await this.latest(key.dagName) : await this.deps.store.get(key);
    if (!run) throw new NotFoundError(`dag-run ${key.dagRunId} of DAG ${key.dagName} not found`);
    return run;
  }

  async latest(dagName: string): Promise<DagRunResource | undefined> {
    const [run] = await this.deps.store.list({ dagName, rootOnly: true, limit: 1 });
    return run;
  }

  /**
   * A running run, or one started but not yet begun (status 0, between its start and its driver's first
   * save: a start answered by the API is a run the caller may stop at once). Queued runs leave their
   * queue by dequeue instead.
   */
  async stop(key: RunKey): Promise<void> {
    const run = await this.get(key);
    const s = run.status.run.status;
    if (!isRunActive(s) && s !== RunStatus.NotStarted) throw new DomainError('not_running', `dag-run ${run.spec.dagRunId} is not running`);
    await this.deps.store.requestStop(runKeyOf(run));
  }

  /** A new attempt of a finished run under the same id (`only`: re-run just that step). */
  async retry(key: RunKey, only?: string): Promise<DagRunResource> {
    const run = await this.get(key);
    if (!isRunTerminal(run.status.run.status)) throw new DomainError('already_running', `dag-run ${run.spec.dagRunId} is still running`);
    const attemptId = this.deps.ids.next();
    const k = runKeyOf(run);
    await this.deps.store.clearStop?.(k);
    return this.deps.store.updateStatus(k, run.metadata.resourceVersion, {
      ...run.status, attemptId,
      run: prepareRetry(run.spec.definition, run.status.run, only),
    });
  }

  /**
   * SPEC 2.2 histRetentionDays: finished runs older than the window are deleted (0: all, -1: none). Only
   * runs of the same DAG as `run` (its definition's name and source file): runs filed under the same name
   * by another DAG keep their own DAG's retention.
   */
  private async pruneHistory(run: DagRunResource, days: number): Promise<void> {
    if (days < 0) return;
    const { dagName } = run.spec;
    const now = this.deps.clock.now();
    if (days > 0 && now - (this.pruned.get(dagName) ?? -Infinity) < PRUNE_INTERVAL_MS) return;
    this.pruned.set(dagName, now);
    const cutoff = this.deps.clock.now() - days * 86_400_000;
    const sameDag = (r: DagRunResource) => r.spec.definition.name === run.spec.definition.name && r.spec.sourceFile === run.spec.sourceFile;
    // Only runs not written since the cutoff can have finished before it: the others are not even read.
    const runs = await this.deps.store.list({ dagName, writtenBefore: cutoff });
    for (const r of runs) {
      const fin = r.status.run.finishedAt;
      if (sameDag(r) && isRunTerminal(r.status.run.status) && fin && Date.parse(fin) <= cutoff) {
        await this.deps.store.delete({ dagName, dagRunId: r.spec.dagRunId });
      }
    }
  }
}
