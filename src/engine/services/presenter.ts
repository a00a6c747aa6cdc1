/** Run records of SPEC 2.8 (summary, detail, node record) built from a DagRun resource. */
import type { DagRunResource } from '../../core/resources.js';
import type { NodeState } from '../../core/run/state.js';
import { stepOf } from '../../core/run/state.js';
import { nodeStatusLabel, runStatusLabel, type NodeStatus } from '../../core/run/status.js';
import { HANDLER_STEP_NAMES } from '../../core/spec/types.js';
import { runLog, type LogStore } from '../../core/ports/log-store.js';
import { runKeyOf } from '../../core/ports/run-store.js';
import { execLogOf } from '../run/exec-request.js';

/** Where logs are, for the records' `log`, `stdout` and `stderr` (SPEC 2.8). */
export type LogLocator = Pick<LogStore, 'locate'>;

export interface RunSummary {
  rootDAGRunName: string; rootDAGRunId: string; parentDAGRunName: string; parentDAGRunId: string;
  dagRunId: string; name: string; status: number; statusLabel: string;
  queuedAt: string; startedAt: string; finishedAt: string; log: string; params: string;
}

export function runSummary(logs: LogLocator, run: DagRunResource): RunSummary {
  const s = run.status.run;
  return {
    rootDAGRunName: run.spec.root.name, rootDAGRunId: run.spec.root.dagRunId,
    parentDAGRunName: run.spec.parent?.name ?? '', parentDAGRunId: run.spec.parent?.dagRunId ?? '',
    dagRunId: run.spec.dagRunId, name: run.spec.dagName, status: s.status, statusLabel: runStatusLabel(s.status),
    queuedAt: run.status.queuedAt, startedAt: s.startedAt, finishedAt: s.finishedAt, log: logs.locate(runLog(runKeyOf(run), run.status.attemptId)), params: run.spec.params,
  };
}

/** The log of the node's latest execution (undefined before it started). */
export function nodeLog(run: DagRunResource, node: NodeState, stream: 'stdout' | 'stderr') {
  const step = stepOf(run.spec.definition, node);
  if (!step || node.status === 0) return undefined;
  return execLogOf(run, step, { node: node.name, attempt: Math.max(0, node.attempt - 1) }, stream);
}

export function nodeRecord(logs: LogLocator, run: DagRunResource, node: NodeState) {
  const step = stepOf(run.spec.definition, node);
  const where = (stream: 'stdout' | 'stderr'): string => {
    const ref = nodeLog(run, node, stream);
    return ref ? logs.locate(ref) : '';
  };
  return {
    step: step ?? { name: node.name },
    stdout: where('stdout'), stderr: where('stderr'),
    startedAt: node.startedAt, finishedAt: node.finishedAt,
    status: node.status, statusLabel: nodeStatusLabel(node.status as NodeStatus),
    retryCount: node.retryCount, doneCount: node.doneCount,
    subRuns: node.subRuns.map((r) => ({ dagRunId: r.dagRunId, params: r.params, name: r.name, status: r.status, statusLabel: runStatusLabel(r.status) })),
    subRunsRepeated: [], error: node.error,
    ...(node.output !== undefined ? { output: node.output } : {}),
    ...(node.items ? { items: node.items.map((i) => ({ item: i.item, status: i.status, statusLabel: nodeStatusLabel(i.status), error: i.error })) } : {}),
  };
}


export function runDetail(logs: LogLocator, run: DagRunResource) {
  const handlers: Record<string, unknown> = {};
  for (const h of run.status.run.handlers) if (h.handler) handlers[HANDLER_STEP_NAMES[h.handler]] = nodeRecord(logs, run, h);
  return { ...runSummary(logs, run), nodes: run.status.run.nodes.map((n) => nodeRecord(logs, run, n)), ...handlers, error: run.status.run.error };
}
