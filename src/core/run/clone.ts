/**
 * A copy of the run state that decide() may mutate. Hand-written because structuredClone was a
 * measurable share of a large run's CPU (a 200-node state cloned on every loop iteration). It must
 * copy every container decide() mutates in place: the state, nodes, items, and the maps.
 */
import type { ItemState, NodeState, RunState } from './state.js';

const cloneItem = (i: ItemState): ItemState => ({ ...i });

function cloneNode(n: NodeState): NodeState {
  const c: NodeState = { ...n, subRuns: n.subRuns.map((r) => ({ ...r })) };
  if (n.items) c.items = n.items.map(cloneItem);
  if (n.approvalInputs) c.approvalInputs = { ...n.approvalInputs };
  return c;
}

export function cloneState(s: RunState): RunState {
  return { ...s, nodes: s.nodes.map(cloneNode), handlers: s.handlers.map(cloneNode), variables: { ...s.variables }, outputs: { ...s.outputs } };
}
