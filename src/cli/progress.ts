/** Foreground progress: one line per step status change, and per parallel item (`step [item]`). */
import type { DagRunResource } from '../core/resources.js';
import type { ItemState, NodeState } from '../core/run/state.js';
import { nodeStatusLabel } from '../core/run/status.js';

interface Seen { status: number; retryCount: number; doneCount: number }

export function progressPrinter(write: (s: string) => void): (run: DagRunResource) => void {
  // Per run (sub-DAG runs print through the same printer), per node: what was printed last. Called on
  // every state change, so the unchanged nodes cost a few number comparisons, no string building.
  const runs = new Map<string, Map<string, Seen>>();
  // decide() copies on write: a node object already looked at has not changed since.
  const looked = new WeakSet<NodeState>();
  return (run) => {
    let seen = runs.get(run.spec.dagRunId);
    if (!seen) runs.set(run.spec.dagRunId, seen = new Map());
    const prefix = run.spec.parent ? `  [${run.spec.dagName}] ` : '';
    let lines = '';
    const line = (key: string, name: string, n: Pick<NodeState, 'status' | 'retryCount' | 'error'> & { doneCount?: number }): void => {
      const last = seen.get(key);
      const doneCount = n.doneCount ?? 0;
      if (n.status === 0 || (last && last.status === n.status && last.retryCount === n.retryCount && last.doneCount === doneCount)) return;
      seen.set(key, { status: n.status, retryCount: n.retryCount, doneCount });
      const label = nodeStatusLabel(n.status);
      const extra = n.error && label !== 'running' ? `: ${n.error}` : n.retryCount > 0 && label === 'running' ? ` (retry ${n.retryCount})` : '';
      lines += `${prefix}${label.padEnd(10)} ${name}${extra}\n`;
    };
    const item = (n: NodeState, i: ItemState): void => line(`${n.name}\u0000${i.index}`, `${n.name} [${i.item}]`, i);
    const visit = (n: NodeState): void => {
      if (looked.has(n)) return;
      looked.add(n);
      for (const i of n.items ?? []) item(n, i);
      line(n.name, n.name, n);
    };
    for (const n of run.status.run.nodes) visit(n);
    for (const n of run.status.run.handlers) visit(n);
    if (lines) write(lines);
  };
}
