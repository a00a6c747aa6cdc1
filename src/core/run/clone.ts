/**
 * Copies of the run state that decide() may change. Hand-written because structuredClone was a
 * measurable share of a large run's CPU. cloneNode must copy every container decide() changes in place
 * inside a node (items, sub-runs, approval inputs); cloneState is the shallow start of one call, whose
 * nodes are copied on write (context.ts writable()).
 */
import type { ItemState, NodeState, RunState } from './state.js';

/** A copy of an item with every field in one fixed order (see cloneNode). */
export const cloneItem = (i: ItemState): ItemState => ({
  index: i.index, item: i.item, status: i.status, attempt: i.attempt, retryCount: i.retryCount,
  exitCode: i.exitCode, error: i.error, output: i.output, nextAt: i.nextAt,
});

/**
 * A copy of a node with every field in one fixed order, optional ones present as undefined (JSON leaves
 * them out). All nodes then share one object layout, so the loops over thousands of them stay on V8's
 * fast path; a node of another layout is only made by JSON.parse, and is replaced on its first change.
 */
export function cloneNode(n: NodeState): NodeState {
  return {
    name: n.name, handler: n.handler, status: n.status, startedAt: n.startedAt, finishedAt: n.finishedAt,
    attempt: n.attempt, retryCount: n.retryCount, doneCount: n.doneCount, exitCode: n.exitCode, error: n.error,
    nextAt: n.nextAt, output: n.output, continued: n.continued, signalledAt: n.signalledAt, killed: n.killed,
    items: n.items?.map(cloneItem), subRuns: n.subRuns.map((r) => ({ ...r })),
    approvalInputs: n.approvalInputs && { ...n.approvalInputs },
  };
}

export function cloneState(s: RunState): RunState {
  return { ...s, nodes: s.nodes.slice(), handlers: s.handlers.slice(), variables: { ...s.variables }, outputs: { ...s.outputs } };
}
