/**
 * The captured variables a step sees (SPEC 2.7, as the reference scopes them): the outputs and approval
 * inputs of the steps it depends on, directly or through others, the last to finish winning. A step on
 * another branch of a graph never sees them. Handlers and the run's own questions see every variable.
 */
import type { DagDefinition } from '../spec/types.js';
import type { RunState } from './state.js';

export function visibleVariables(def: Pick<DagDefinition, 'steps'>, state: Pick<RunState, 'nodes' | 'variables'>, node: string): Record<string, string> {
  if (!state.nodes.some((n) => n.name === node)) return state.variables;
  const ancestors = ancestorsOf(def, node);
  const steps = new Map(def.steps.map((s) => [s.name, s]));
  const done = state.nodes
    .map((n, order) => ({ n, order }))
    .filter(({ n }) => ancestors.has(n.name) && n.finishedAt)
    .sort((a, b) => a.n.finishedAt.localeCompare(b.n.finishedAt) || a.order - b.order);
  const out: Record<string, string> = {};
  for (const { n } of done) {
    const output = steps.get(n.name)?.output;
    if (output && n.output !== undefined) out[output.name] = n.output;
    Object.assign(out, n.approvalInputs ?? {});
  }
  return out;
}

function ancestorsOf(def: Pick<DagDefinition, 'steps'>, node: string): Set<string> {
  const depends = new Map(def.steps.map((s) => [s.name, s.depends]));
  const seen = new Set<string>();
  const todo = [...(depends.get(node) ?? [])];
  while (todo.length > 0) {
    const name = todo.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    todo.push(...(depends.get(name) ?? []));
  }
  return seen;
}
