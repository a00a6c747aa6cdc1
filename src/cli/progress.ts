/** Foreground progress: one line per step status change. */
import type { DagRunResource } from '../core/resources.js';
import { nodeStatusLabel } from '../core/run/status.js';

export function progressPrinter(write: (s: string) => void): (run: DagRunResource) => void {
  const seen = new Map<string, string>();
  return (run) => {
    for (const n of [...run.status.run.nodes, ...run.status.run.handlers]) {
      const label = nodeStatusLabel(n.status);
      const key = `${run.spec.dagRunId}/${n.name}`;
      const sig = `${label}/${n.retryCount}/${n.doneCount}`;
      if (seen.get(key) === sig || n.status === 0) continue;
      seen.set(key, sig);
      const extra = n.error && label !== 'running' ? `: ${n.error}` : n.retryCount > 0 && label === 'running' ? ` (retry ${n.retryCount})` : '';
      const prefix = run.spec.parent ? `  [${run.spec.dagName}] ` : '';
      write(`${prefix}${label.padEnd(10)} ${n.name}${extra}\n`);
    }
  };
}
