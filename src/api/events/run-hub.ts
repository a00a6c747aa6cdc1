/**
 * One subscription to the RunFeed shared by every open event stream. It passes a run on only when its
 * status or one of its nodes' changed (the feed also delivers saves that change neither: a captured
 * output, a log location), and never an older state of a run after a newer one (resourceVersion order:
 * on Kubernetes the watch and this process's own creates may arrive out of order).
 */
import type { RunFeed } from '../../core/ports/run-feed.js';
import { runKeyOf, runKeyText } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import type { NodeState } from '../../core/run/state.js';

/** Runs remembered for the comparison (the least recently changed are forgotten first: they pass again). */
const MAX_TRACKED = 10_000;

export const versionOf = (rv: string | undefined): bigint => {
  try {
    return rv ? BigInt(rv) : 0n;
  } catch {
    return 0n;
  }
};

const nodePart = (n: NodeState): string =>
  `${n.name}=${n.status}/${n.retryCount}/${n.doneCount}/${n.subRuns.map((r) => `${r.dagRunId}:${r.status}`).join(',')}/${(n.items ?? []).map((i) => i.status).join(',')}`;

/** What a change must alter to be passed on: the attempt, the run's status, each node's status, retries, repeats, sub-runs and items. */
export function statusFingerprint(run: DagRunResource): string {
  const s = run.status.run;
  return `${run.status.attemptId}|${s.status}|${s.nodes.map(nodePart).join(';')}|${s.handlers.map(nodePart).join(';')}`;
}

export class RunChangeHub {
  private readonly listeners = new Set<(run: DagRunResource) => void>();
  private readonly last = new Map<string, { rv: bigint; fp: string }>();
  private off: (() => void) | undefined;

  constructor(private readonly feed: RunFeed) {}

  /** Calls fn with each status change of any run from now on; returns the unsubscribe. */
  listen(fn: (run: DagRunResource) => void): () => void {
    this.listeners.add(fn);
    this.off ??= this.feed.subscribe((run) => this.changed(run));
    return () => {
      if (!this.listeners.delete(fn) || this.listeners.size > 0) return;
      this.off?.();
      this.off = undefined;
      this.last.clear();
    };
  }

  /** See RunFeed.ready: after it, a read of the store misses no change that follows. */
  ready(): Promise<void> {
    return this.feed.ready();
  }

  private changed(run: DagRunResource): void {
    const k = runKeyText(runKeyOf(run));
    const rv = versionOf(run.metadata.resourceVersion);
    const prev = this.last.get(k);
    if (prev && rv <= prev.rv) return;
    const fp = statusFingerprint(run);
    if (prev && fp === prev.fp) {
      prev.rv = rv;
      return;
    }
    this.last.delete(k);
    this.last.set(k, { rv, fp });
    if (this.last.size > MAX_TRACKED) this.last.delete(this.last.keys().next().value as string);
    for (const fn of this.listeners) {
      try { fn(run); } catch { /* one stream never stops the others */ }
    }
  }
}
