/**
 * DagRuns created with kubectl (or a GitOps tool) that name a Dag: `spec: {dag: hello, params: "..."}`.
 * The operator starts the run they ask for, with the object's name as the run id (so applying the same
 * object again never starts a second run), snapshots the Dag as any start does, and answers in the
 * object's status: `startedRun` (the DagRun it started) or why it could not.
 */
import { AlreadyExistsError, DomainError } from '../core/errors.js';
import type { DagSource } from '../core/ports/engine-ports.js';
import { dagRunName } from '../core/naming.js';
import { isValidRunId } from '../core/resources.js';
import type { RunLauncher } from '../engine/services/launcher.js';

export interface RunRequest {
  name: string;
  uid: string;
  dag: string;
  params: string;
}

export type RequestAnswer = { startedRun: string } | { error: string };

export interface RunRequestDeps {
  dags: DagSource;
  launcher: RunLauncher;
  answer(r: RunRequest, a: RequestAnswer): Promise<void>;
  log: { warn(msg: string, fields?: Record<string, unknown>): void };
}

export class RunRequests {
  private readonly inflight = new Set<string>();

  constructor(private readonly deps: RunRequestDeps) {}

  /** Handles a request once at a time per object; a failure to answer is retried on the next event. */
  handle(r: RunRequest): void {
    const k = `${r.name}/${r.uid}`;
    if (this.inflight.has(k)) return;
    this.inflight.add(k);
    void this.start(r)
      .then((a) => this.deps.answer(r, a))
      .catch((e: unknown) => this.deps.log.warn('Failed to answer a DagRun request', { dagRun: r.name, error: e instanceof Error ? e.message : String(e) }))
      .finally(() => this.inflight.delete(k));
  }

  private async start(r: RunRequest): Promise<RequestAnswer> {
    if (!isValidRunId(r.name)) return { error: `the object name ${r.name} cannot be a run id` };
    const dag = await this.deps.dags.find(r.dag);
    if (!dag) return { error: `Dag ${r.dag} not found` };
    if (dag.errors.length > 0) return { error: `Dag ${r.dag} is invalid: ${dag.errors.join('; ')}` };
    try {
      const started = await this.deps.launcher.start(dag, { trigger: 'api', dagRunId: r.name, dagName: r.dag, ...(r.params ? { params: r.params } : {}) });
      return { startedRun: dagRunName(started.dagName, started.dagRunId) };
    } catch (e) {
      // Applied again after svc started it, before the answer was saved.
      if (e instanceof AlreadyExistsError) return { startedRun: dagRunName(r.dag, r.name) };
      if (e instanceof DomainError) return { error: e.message };
      throw e;
    }
  }
}
