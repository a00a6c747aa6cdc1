/**
 * Retrying a finished run (SPEC 4.5 retry, reference 10): a new attempt under the same run id that
 * re-runs failed, aborted and rejected steps and everything downstream, keeping succeeded and skipped
 * upstream steps and their outputs.
 */
import type { DagDefinition } from '../../core/spec/types.js';
import type { NodeState, RunState } from '../../core/run/state.js';
import { newNode } from '../../core/run/state.js';
import { NodeStatus, RunStatus } from '../../core/run/status.js';

const keep = (n: NodeState): boolean => n.status === NodeStatus.Succeeded || n.status === NodeStatus.Skipped || n.status === NodeStatus.PartiallySucceeded;

/** `only`: re-run just that step (reference `retry --step`), everything else kept as it ended. */
export function prepareRetry(def: DagDefinition, prev: RunState, only?: string): RunState {
  const rerun = new Set(only !== undefined ? [only] : prev.nodes.filter((n) => !keep(n)).map((n) => n.name));
  // Downstream of anything re-run is re-run too (fixed point over depends).
  for (let changed = only === undefined; changed;) {
    changed = false;
    for (const s of def.steps) {
      if (!rerun.has(s.name) && s.depends.some((d) => rerun.has(d))) { rerun.add(s.name); changed = true; }
    }
  }
  const nodes = prev.nodes.map((n) => (rerun.has(n.name) ? newNode(n.name) : n));
  const kept = new Set(nodes.filter((n) => !rerun.has(n.name)).map((n) => n.name));
  const variables: Record<string, string> = {};
  const outputs: Record<string, string> = {};
  for (const s of def.steps) {
    const n = nodes.find((x) => x.name === s.name);
    if (!kept.has(s.name) || !s.output || n?.output === undefined) continue;
    variables[s.output.name] = n.output;
    if (!s.output.omit) outputs[s.output.key] = n.output;
  }
  return {
    status: RunStatus.NotStarted, stage: 'delay', startedAt: '', finishedAt: '', nodes,
    handlers: prev.handlers.map((h) => newNode(h.name, h.handler)), variables, outputs, error: '',
  };
}
