/** Read side of run management (SPEC 4.5): filtered listing, outputs, sub-DAG runs and their definitions. */
import { stringify } from 'yaml';
import { NotFoundError } from '../../core/errors.js';
import type { RunKey } from '../../core/ports/run-store.js';
import { isRunTerminal } from '../../core/run/status.js';
import { positionOf } from '../../core/run/run-list.js';
import type { DagDefinition } from '../../core/spec/types.js';
import type { EngineDeps } from '../deps.js';
import type { OutputsBody } from '../run/finish.js';
import { runSummary } from './presenter.js';
import type { RunService } from './run-service.js';
import type { RunFilter, RunPage, RunQueriesApi, SubRunSummary } from './api.js';
import { runKeyOf } from '../../core/ports/run-store.js';


/** SPEC 2.7: what the outputs endpoint returns for a run without outputs. */
export const EMPTY_OUTPUTS: OutputsBody = {
  metadata: { dagName: '', dagRunId: '', attemptId: '', status: '', completedAt: '0001-01-01T00:00:00Z', params: '' },
  outputs: {},
};


export class RunQueries implements RunQueriesApi {
  constructor(private readonly deps: Pick<EngineDeps, 'store' | 'logs'>, private readonly runs: RunService) {}

  /**
   * Root runs, newest first (core/run/run-list.ts), filtered by the store (through its index where it has
   * one). A page asks for one run more than it returns, to know whether another page follows.
   */
  async list(f: RunFilter): Promise<RunPage> {
    const runs = await this.deps.store.list({
      rootOnly: true,
      ...(f.name !== undefined ? { dagName: f.name } : {}),
      ...(f.status !== undefined ? { status: f.status } : {}),
      ...(f.fromMs !== undefined ? { fromMs: f.fromMs } : {}),
      ...(f.toMs !== undefined ? { toMs: f.toMs } : {}),
      ...(f.dagRunId ? { dagRunIdContains: f.dagRunId } : {}),
      ...(f.tags ? { tags: f.tags } : {}),
      ...(f.after ? { after: f.after } : {}),
      ...(f.limit !== undefined ? { limit: f.limit + 1 } : {}),
    });
    const more = f.limit !== undefined && runs.length > f.limit;
    const page = more ? runs.slice(0, f.limit) : runs;
    return { dagRuns: page.map((r) => runSummary(this.deps.logs, r)), ...(more ? { next: positionOf(page.at(-1)!) } : {}) };
  }

  /** SPEC 2.7 outputs of the run's current attempt; the empty form when there are none (yet). */
  async outputs(key: RunKey): Promise<OutputsBody> {
    const run = await this.runs.get(key);
    if (!isRunTerminal(run.status.run.status)) return EMPTY_OUTPUTS;
    const body = (await this.deps.logs.readOutputs(runKeyOf(run), run.status.attemptId)) as OutputsBody | undefined;
    if (!body || typeof body !== 'object' || !body.outputs || Object.keys(body.outputs).length === 0) return EMPTY_OUTPUTS;
    return body;
  }

  /** Sub-DAG runs started by the steps of a run (direct children), in step order. */
  async subRuns(key: RunKey): Promise<SubRunSummary[]> {
    const run = await this.runs.get(key);
    const out: SubRunSummary[] = [];
    for (const node of run.status.run.nodes) {
      for (const ref of node.subRuns) {
        const child = await this.deps.store.get({ dagName: ref.name, dagRunId: ref.dagRunId });
        if (child) out.push({ ...runSummary(this.deps.logs, child), stepName: node.name });
      }
    }
    return out;
  }

  /** The definition a sub-DAG run ran with: the snapshot as data and as YAML (defaults filled in). */
  async subRunSpec(key: RunKey, subDagRunId: string): Promise<{ dagRunId: string; name: string; spec: string; dag: DagDefinition }> {
    const run = await this.runs.get(key);
    const ref = run.status.run.nodes.flatMap((n) => n.subRuns).find((s) => s.dagRunId === subDagRunId);
    const child = ref && await this.deps.store.get({ dagName: ref.name, dagRunId: ref.dagRunId });
    if (!child) throw new NotFoundError(`sub-DAG run ${subDagRunId} of dag-run ${run.spec.dagRunId} (DAG ${run.spec.dagName}) not found`);
    return { dagRunId: child.spec.dagRunId, name: child.spec.dagName, spec: stringify(child.spec.definition), dag: child.spec.definition };
  }
}

