/**
 * The queues, as the server's queue processor sees them (docs/api.md "Queues"): a run belongs to the named
 * queue of its DAG's `queue`, else to its DAG's own queue (named after the DAG), whose limit is the DAG's
 * maxActiveRuns (default 1; -1 unlimited; 0 counts as 1). A named queue's limit is in the server's
 * configuration, which the API does not show. Queued runs wait first in, first out (queuedAt, run id).
 */
import type { DagRunSummary } from '../api/types';

/** What the UI knows of a DAG's queue settings (from its detail). */
export interface DagQueueInfo {
  queue?: string | undefined;
  maxActiveRuns?: number | undefined;
}

export interface QueueView {
  name: string;
  /** `dag`: a DAG's own queue; `named`: a `queue:` shared by DAGs (and enqueue overrides). */
  kind: 'dag' | 'named';
  /** Runs at once; 'unlimited'; undefined when the server's configuration says (named queues). */
  limit: number | 'unlimited' | undefined;
  running: DagRunSummary[];
  queued: DagRunSummary[];
}

function limitOf(info: DagQueueInfo | undefined): number | 'unlimited' {
  const m = info?.maxActiveRuns ?? 1;
  return m < 0 ? 'unlimited' : Math.max(1, m);
}

const byQueueTime = (a: DagRunSummary, b: DagRunSummary) => (a.queuedAt || '').localeCompare(b.queuedAt || '') || a.dagRunId.localeCompare(b.dagRunId);
const byStart = (a: DagRunSummary, b: DagRunSummary) => (a.startedAt || a.queuedAt).localeCompare(b.startedAt || b.queuedAt) || a.dagRunId.localeCompare(b.dagRunId);

/** The queues that have runs: each with its running (or waiting) runs and its queued runs, in order. */
export function groupQueues(runs: readonly DagRunSummary[], info: ReadonlyMap<string, DagQueueInfo>): QueueView[] {
  const queues = new Map<string, QueueView>();
  for (const r of runs) {
    const dag = info.get(r.name);
    const named = dag?.queue ? dag.queue : undefined;
    const key = named ? `named:${named}` : `dag:${r.name}`;
    let q = queues.get(key);
    if (!q) {
      q = { name: named ?? r.name, kind: named ? 'named' : 'dag', limit: named ? undefined : limitOf(dag), running: [], queued: [] };
      queues.set(key, q);
    }
    (r.statusLabel === 'queued' ? q.queued : q.running).push(r);
  }
  const out = [...queues.values()];
  for (const q of out) {
    q.queued.sort(byQueueTime);
    q.running.sort(byStart);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind));
}
