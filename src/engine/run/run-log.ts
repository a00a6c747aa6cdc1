/** The run log (the "scheduler log" of a run, SPEC 2.8 `log`): one line per status change. */
import type { NodeState, RunState } from '../../core/run/state.js';
import { isRunTerminal, nodeStatusLabel, runStatusLabel } from '../../core/run/status.js';
import type { Clock } from '../../core/ports/clock.js';

function nodeLine(prev: NodeState | undefined, n: NodeState): string | undefined {
  const changed = !prev || prev.status !== n.status || prev.attempt !== n.attempt || prev.retryCount !== n.retryCount;
  if (!changed || n.status === 0) return undefined;
  const what = n.handler ? 'handler' : 'step';
  if (n.status === 1 && n.nextAt) return `${what} ${n.name} waits until ${n.nextAt} (${n.retryCount > 0 ? `retry ${n.retryCount}` : `repeat ${n.doneCount}`})`;
  if (n.status === 1) return `${what} ${n.name} running (execution ${n.attempt})`;
  return `${what} ${n.name} ${nodeStatusLabel(n.status)}${n.error ? `: ${n.error}` : ''}`;
}

/**
 * decide() keeps nodes in place: the same index is the same node (by name otherwise), and it copies on
 * write, so the very same object is an unchanged node. Called on every state change.
 */
function diffNodes(prev: NodeState[], next: NodeState[], lines: string[]): void {
  let byName: Map<string, NodeState> | undefined;
  for (let i = 0; i < next.length; i++) {
    const n = next[i]!;
    let before = prev[i];
    if (before === n) continue;
    if (before?.name !== n.name) before = (byName ??= new Map(prev.map((p) => [p.name, p]))).get(n.name);
    const line = nodeLine(before, n);
    if (line) lines.push(line);
  }
}

/** Lines describing what changed from prev to next (pure). */
export function runLogLines(prev: RunState, next: RunState): string[] {
  const lines: string[] = [];
  const run = prev.status !== next.status ? `run ${runStatusLabel(next.status)}${next.error && next.error !== prev.error ? `: ${next.error}` : ''}` : undefined;
  // A run that starts says so before its steps; one that ends, after the steps that ended it.
  const last = isRunTerminal(next.status);
  if (run && !last) lines.push(run);
  diffNodes(prev.nodes, next.nodes, lines);
  diffNodes(prev.handlers, next.handlers, lines);
  if (run && last) lines.push(run);
  return lines;
}

/** Lines as they are appended to the run log: each with the time of the change. */
export function logText(lines: string[], now: number): string {
  const at = new Date(now).toISOString();
  return lines.map((l) => `${at} ${l}\n`).join('');
}

/**
 * One driver's run log: one timestamped line per change, appended in order after the current turn of the
 * event loop, so the write is off the path from one step's end to the next step's start (several changes
 * of one turn go out as one append). Write failures are ignored: the run log is informational.
 */
export class RunLogWriter {
  private lines: string[] = [];
  private pending: Promise<void> | undefined;

  constructor(private readonly append: (text: string) => Promise<void>, private readonly clock: Clock) {}

  add(lines: string[]): void {
    if (lines.length === 0) return;
    this.lines.push(logText(lines, this.clock.now()));
    this.pending ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.write());
  }

  /** Resolves once every line added so far is written. */
  async flush(): Promise<void> {
    while (this.pending) await this.pending;
  }

  private async write(): Promise<void> {
    const text = this.lines.splice(0).join('');
    this.pending = undefined;
    await this.append(text).catch(() => undefined);
  }
}
