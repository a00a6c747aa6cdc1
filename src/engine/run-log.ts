/** The run log (the "scheduler log" of a run, SPEC 2.8 `log`): one line per status change. */
import type { NodeState, RunState } from '../core/run/state.js';
import { nodeStatusLabel, runStatusLabel } from '../core/run/status.js';

function nodeLine(prev: NodeState | undefined, n: NodeState): string | undefined {
  const changed = !prev || prev.status !== n.status || prev.attempt !== n.attempt || prev.retryCount !== n.retryCount;
  if (!changed || n.status === 0) return undefined;
  const what = n.handler ? 'handler' : 'step';
  if (n.status === 1 && n.nextAt) return `${what} ${n.name} waits until ${n.nextAt} (${n.retryCount > 0 ? `retry ${n.retryCount}` : `repeat ${n.doneCount}`})`;
  if (n.status === 1) return `${what} ${n.name} running (execution ${n.attempt})`;
  return `${what} ${n.name} ${nodeStatusLabel(n.status)}${n.error ? `: ${n.error}` : ''}`;
}

/** Lines describing what changed from prev to next (pure). */
export function runLogLines(prev: RunState, next: RunState): string[] {
  const lines: string[] = [];
  if (prev.status !== next.status) lines.push(`run ${runStatusLabel(next.status)}${next.error && next.error !== prev.error ? `: ${next.error}` : ''}`);
  const before = new Map([...prev.nodes, ...prev.handlers].map((n) => [n.name, n]));
  for (const n of [...next.nodes, ...next.handlers]) {
    const line = nodeLine(before.get(n.name), n);
    if (line) lines.push(line);
  }
  return lines;
}
