/**
 * Run management beyond start and stop (SPEC 4.5, 3.3): dequeue, retry (same id or as a new id),
 * reschedule, manual step status, and the approval decisions of hitl steps.
 */
import { AlreadyExistsError, BadRequestError, DomainError, NotFoundError } from '../../core/errors.js';
import { updateStatus } from '../run/status-update.js';
import type { LoadedDag } from '../../core/ports/engine-ports.js';
import type { RunKey } from '../../core/ports/run-store.js';
import type { ControlObservation } from '../../core/ports/run-controls.js';
import type { DagRunResource } from '../../core/resources.js';
import { decide } from '../../core/run/decide.js';
import type { NodeState } from '../../core/run/state.js';
import { stepOf } from '../../core/run/state.js';
import { NodeStatus, RunStatus, isRunTerminal, nodeStatusLabel } from '../../core/run/status.js';
import type { EngineDeps } from '../deps.js';
import type { LaunchService } from './launch-service.js';
import { prepareRetry } from '../run/retry.js';
import { newRunResource } from '../run/run-factory.js';
import type { RunService } from './run-service.js';
import type { RunWatcher } from './run-watcher.js';
import { runKeyOf } from '../../core/ports/run-store.js';
import type { ApprovalDecision, RunManagementApi } from './api.js';


/** How long an approval call waits for the run's driver to apply it before answering. */
const APPLY_WAIT_MS = 10_000;

export class RunControl implements RunManagementApi {
  constructor(
    private readonly deps: EngineDeps,
    private readonly runs: RunService,
    private readonly launcher: LaunchService,
    private readonly watcher: RunWatcher,
  ) {}

  /** SPEC 3.3: a queued run leaves the queue; it ends aborted (reference). 404 when it is not queued. */
  async dequeue(key: RunKey): Promise<DagRunResource> {
    return this.changed(await dequeueRun(this.deps, this.runs, key));
  }

  /**
   * Retry (reference 10): a new attempt of a finished run under the same id, or, when `dagRunId` names
   * another id, a new run with that id that keeps the succeeded steps of this one. `stepName`: re-run
   * only that step. 400 already_running (mapped by the API) while the run is not finished.
   */
  async retry(key: RunKey, o: { dagRunId?: string; stepName?: string }): Promise<DagRunResource> {
    const run = await this.runs.get(key);
    if (!isRunTerminal(run.status.run.status)) throw new DomainError('already_running', `dag-run ${run.spec.dagRunId} of DAG ${run.spec.dagName} has not finished`);
    if (o.stepName !== undefined) this.nodeOf(run, o.stepName);
    let next: DagRunResource;
    if (!o.dagRunId || o.dagRunId === run.spec.dagRunId) {
      next = await this.runs.retry(runKeyOf(run), o.stepName);
    } else {
      const copy = newRunResource(this.deps, {
        definition: run.spec.definition, localDags: run.spec.localDags, sourceFile: run.spec.sourceFile, dagRunId: o.dagRunId,
        dagName: run.spec.dagName, params: run.spec.params, trigger: 'retry', workingDir: run.spec.workingDir,
        ...(run.spec.extraEnv ? { extraEnv: run.spec.extraEnv } : {}), ...(run.spec.queue ? { queue: run.spec.queue } : {}),
      });
      copy.status.run = prepareRetry(run.spec.definition, run.status.run, o.stepName);
      try {
        next = await this.deps.store.create(copy);
      } catch (e) {
        if (e instanceof AlreadyExistsError) throw new AlreadyExistsError(`dag-run ${o.dagRunId} of DAG ${run.spec.dagName} already exists`);
        throw e;
      }
    }
    this.launcher.onCreated(next);
    this.launcher.drive(runKeyOf(next));
    return next;
  }

  /** "Retry as new" (reference 10): a new run from the historic run's definition snapshot and params; always singleton. */
  async reschedule(key: RunKey, o: { dagRunId?: string; dagName?: string }): Promise<{ dagRunId: string; queued: boolean }> {
    const run = await this.runs.get(key);
    const def = run.spec.definition;
    const dag: LoadedDag = { definition: def, localDags: run.spec.localDags, errors: [], ...(run.spec.sourceFile ? { sourceFile: run.spec.sourceFile } : {}) };
    const dagName = o.dagName ?? (run.spec.dagName !== def.name ? run.spec.dagName : undefined);
    const queued = !!def.queue;
    const opts = {
      params: run.spec.params, trigger: 'manual' as const, singleton: true, conflictCode: 'max_run_reached' as const,
      defaultWorkingDir: run.spec.workingDir, ...(o.dagRunId ? { dagRunId: o.dagRunId } : {}), ...(dagName ? { dagName } : {}),
      ...(run.spec.extraEnv ? { extraEnv: run.spec.extraEnv } : {}),
    };
    const started = queued ? await this.launcher.enqueue(dag, opts) : await this.launcher.start(dag, opts);
    return { dagRunId: started.dagRunId, queued };
  }

  /** SPEC 3.3 PATCH step status: on a finished run (the driver owns a live one); the run status is recomputed. */
  async patchStepStatus(key: RunKey, stepName: string, status: NodeStatus): Promise<DagRunResource> {
    return this.changed(await updateStatus(this.deps.store, await this.runs.get(key), {
      build: (run) => {
        this.nodeOf(run, stepName);
        if (!isRunTerminal(run.status.run.status)) {
          throw new BadRequestError(`dag-run ${run.spec.dagRunId} is ${run.status.run.status === RunStatus.Queued ? 'queued' : 'running'}: step status can be changed once it has finished`);
        }
        const d = decide(run.spec.definition, run.status.run, [{ type: 'patchStatus', node: stepName, status }], this.deps.clock.now());
        return { ...run.status, run: d.state };
      },
      reread: (k) => this.runs.get(k), tries: 4,
    }));
  }

  /** SPEC 3.3 approve/reject of a waiting hitl step: recorded for the run's driver, which applies it. */
  async decideApproval(key: RunKey, stepName: string, obs: ControlObservation): Promise<ApprovalDecision> {
    const controls = this.deps.controls;
    if (!controls) throw new DomainError('service_unavailable', 'approvals are not available on this backend');
    const run = await this.runs.get(key);
    checkApproval(run, stepName, obs);
    const k = runKeyOf(run);
    await controls.push(k, obs);
    const moved = (r: DagRunResource) => (r.status.run.nodes.find((n) => n.name === stepName)?.status ?? NodeStatus.Waiting) !== NodeStatus.Waiting;
    const after = (await this.watcher.until(k, moved, APPLY_WAIT_MS)) ?? run;
    const status = after.status.run.nodes.find((n) => n.name === stepName)?.status ?? NodeStatus.Waiting;
    return { dagRunId: run.spec.dagRunId, stepName, status, statusLabel: nodeStatusLabel(status) };
  }

  /** Inputs of an approval (SPEC 2.6 hitl config): only declared names, every required one non-empty. */
  static checkInputs(config: Record<string, unknown>, inputs: Record<string, string>): string | undefined {
    const declared = Array.isArray(config.input) ? config.input.filter((x): x is string => typeof x === 'string') : [];
    const required = Array.isArray(config.required) ? config.required.filter((x): x is string => typeof x === 'string') : [];
    const unknown = Object.keys(inputs).filter((k) => !declared.includes(k));
    if (unknown.length > 0) return `unknown input${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: this step accepts ${declared.length ? declared.join(', ') : 'no inputs'}`;
    const missing = required.filter((k) => (inputs[k] ?? '').trim() === '');
    if (missing.length > 0) return `missing required input${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
    return undefined;
  }

  private nodeOf(run: DagRunResource, stepName: string): NodeState {
    const node = run.status.run.nodes.find((n) => n.name === stepName);
    if (!node) throw new NotFoundError(`step "${stepName}" not found in dag-run ${run.spec.dagRunId} of DAG ${run.spec.dagName}`);
    return node;
  }

  private changed(run: DagRunResource): DagRunResource {
    this.deps.onChange?.(run);
    return run;
  }
}

/** SPEC 3.3: a queued run leaves the queue and ends aborted; NotFoundError when it is not queued. */
export async function dequeueRun(deps: EngineDeps, runs: RunService, key: RunKey): Promise<DagRunResource> {
  // A run the queue processor claimed is not queued any more (its claim is a compare-and-swap too).
  return updateStatus(deps.store, await runs.get(key), {
    build: (run) => {
      if (run.status.run.status !== RunStatus.Queued) {
        throw new NotFoundError(`dag-run ${run.spec.dagRunId} of DAG ${run.spec.dagName} is not in the queue`);
      }
      const now = new Date(deps.clock.now()).toISOString();
      return { ...run.status, run: { ...run.status.run, status: RunStatus.Aborted, stage: 'done', finishedAt: now, error: 'dequeued' } };
    },
    reread: (k) => runs.get(k), tries: 4,
  });
}

/** Throws why an approval decision cannot apply: no such step, not a hitl step, not waiting, bad inputs. */
export function checkApproval(run: DagRunResource, stepName: string, obs: ControlObservation): void {
  const node = run.status.run.nodes.find((n) => n.name === stepName);
  if (!node) throw new NotFoundError(`step "${stepName}" not found in dag-run ${run.spec.dagRunId} of DAG ${run.spec.dagName}`);
  const step = stepOf(run.spec.definition, node);
  if (step?.type !== 'hitl') throw new BadRequestError(`step "${stepName}" is not an approval step (type hitl)`);
  if (node.status !== NodeStatus.Waiting) {
    throw new BadRequestError(`step "${stepName}" is not waiting for approval (it is ${nodeStatusLabel(node.status)})`);
  }
  const problem = obs.type === 'approve' ? RunControl.checkInputs(step.config, obs.inputs) : undefined;
  if (problem) throw new BadRequestError(problem);
}
