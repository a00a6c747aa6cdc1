/** Run records of SPEC 2.8 (summary, detail, node record) built from a DagRun resource. */
import type { DagRunResource } from '../core/resources.js';
import type { NodeState } from '../core/run/state.js';
import { stepOf } from '../core/run/state.js';
import { nodeStatusLabel, runStatusLabel, type NodeStatus } from '../core/run/status.js';
import { HANDLER_STEP_NAMES } from '../core/spec/types.js';
import type { EngineDeps } from './deps.js';
import { execFiles } from './exec-request.js';

export interface RunSummary {
  rootDAGRunName: string; rootDAGRunId: string; parentDAGRunName: string; parentDAGRunId: string;
  dagRunId: string; name: string; status: number; statusLabel: string;
  queuedAt: string; startedAt: string; finishedAt: string; log: string; params: string;
}

export function runSummary(run: DagRunResource): RunSummary {
  const s = run.status.run;
  return {
    rootDAGRunName: run.spec.root.name, rootDAGRunId: run.spec.root.dagRunId,
    parentDAGRunName: run.spec.parent?.name ?? '', parentDAGRunId: run.spec.parent?.dagRunId ?? '',
    dagRunId: run.spec.dagRunId, name: run.spec.dagName, status: s.status, statusLabel: runStatusLabel(s.status),
    queuedAt: run.status.queuedAt, startedAt: s.startedAt, finishedAt: s.finishedAt, log: run.status.log, params: run.spec.params,
  };
}

export function nodeRecord(deps: Pick<EngineDeps, 'artifacts'>, run: DagRunResource, node: NodeState) {
  const step = stepOf(run.spec.definition, node);
  const files = step ? execFiles(deps as EngineDeps, run, step, { node: node.name, attempt: Math.max(0, node.attempt - 1) }) : { stdout: '', stderr: '' };
  const started = node.status !== 0;
  return {
    step: step ?? { name: node.name },
    stdout: started ? files.stdout : '', stderr: started ? files.stderr : '',
    startedAt: node.startedAt, finishedAt: node.finishedAt,
    status: node.status, statusLabel: nodeStatusLabel(node.status as NodeStatus),
    retryCount: node.retryCount, doneCount: node.doneCount,
    subRuns: node.subRuns.map((r) => ({ dagRunId: r.dagRunId, params: r.params, name: r.name, status: r.status, statusLabel: runStatusLabel(r.status) })),
    subRunsRepeated: [], error: node.error,
    ...(node.output !== undefined ? { output: node.output } : {}),
    ...(node.items ? { items: node.items.map((i) => ({ item: i.item, status: i.status, statusLabel: nodeStatusLabel(i.status), error: i.error })) } : {}),
  };
}


export function runDetail(deps: Pick<EngineDeps, 'artifacts'>, run: DagRunResource) {
  const handlers: Record<string, unknown> = {};
  for (const h of run.status.run.handlers) if (h.handler) handlers[HANDLER_STEP_NAMES[h.handler]] = nodeRecord(deps, run, h);
  return { ...runSummary(run), nodes: run.status.run.nodes.map((n) => nodeRecord(deps, run, n)), ...handlers, error: run.status.run.error };
}
