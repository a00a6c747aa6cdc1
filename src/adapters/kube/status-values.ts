/**
 * A captured value is in a run's state up to three times: the node's `output`, the variable it sets
 * and its outputs.json entry. In a DagRun status (a 1 MiB budget, etcd's objects near 1.5 MB) it is
 * kept once: a variable or outputs entry equal to a node's output (and longer than a reference) is
 * stored as `valueRefs` naming that node, and restored when read. Exact: only equal values are replaced.
 */
import type { RunState } from '../../core/run/state.js';

/** Shorter values cost less than the reference that would replace them. */
const MIN_SHARED = 256;

interface ValueRefs {
  variables?: Record<string, string>;
  outputs?: Record<string, string>;
}

type Stored = RunState & { valueRefs?: ValueRefs };

export function compactValues(run: RunState): RunState {
  const byValue = new Map<string, string>();
  for (const n of run.nodes) if (n.output !== undefined && n.output.length >= MIN_SHARED && !byValue.has(n.output)) byValue.set(n.output, n.name);
  if (byValue.size === 0) return run;
  const split = (m: Record<string, string>): [Record<string, string>, Record<string, string>] => {
    const kept: Record<string, string> = {};
    const refs: Record<string, string> = {};
    for (const [k, v] of Object.entries(m)) {
      const node = byValue.get(v);
      if (node !== undefined) refs[k] = node;
      else kept[k] = v;
    }
    return [kept, refs];
  };
  const [variables, variableRefs] = split(run.variables);
  const [outputs, outputRefs] = split(run.outputs);
  if (Object.keys(variableRefs).length + Object.keys(outputRefs).length === 0) return run;
  const stored: Stored = { ...run, variables, outputs, valueRefs: { variables: variableRefs, outputs: outputRefs } };
  return stored;
}

export function expandValues(run: RunState): RunState {
  const { valueRefs, ...rest } = run as Stored;
  if (!valueRefs) return run;
  const outputOf = new Map(rest.nodes.map((n) => [n.name, n.output]));
  const restore = (kept: Record<string, string>, refs: Record<string, string> = {}): Record<string, string> => {
    const out = { ...kept };
    for (const [k, node] of Object.entries(refs)) {
      const v = outputOf.get(node);
      if (v !== undefined) out[k] = v;
    }
    return out;
  };
  return { ...rest, variables: restore(rest.variables, valueRefs.variables), outputs: restore(rest.outputs, valueRefs.outputs) };
}
