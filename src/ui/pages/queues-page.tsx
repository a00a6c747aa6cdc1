/**
 * The queues (`/queues`): each queue that holds runs, its running runs and its queued runs in the order
 * they will start, live through the run event stream. Built from GET /dag-runs (statuses running,
 * waiting, queued) and each DAG's `queue` and `maxActiveRuns` (lib/queues.ts); a queue override given to
 * one enqueue is not visible through the API, so such a run shows under its DAG's queue.
 */
import { useMemo } from 'react';
import { Link } from 'react-router';
import { useLive } from '../api/live';
import { useDagDetails, useDags, useQueueRuns } from '../api/queries';
import type { DagRunSummary } from '../api/types';
import { RunActions } from '../components/run-actions';
import { ErrorBox, Loading } from '../components/query-state';
import { StatusBadge } from '../components/status-badge';
import { formatTime } from '../lib/format';
import { useTitle } from '../lib/hooks';
import { groupQueues, type DagQueueInfo, type QueueView } from '../lib/queues';

export function QueuesPage() {
  useTitle('Queues');
  const runs = useQueueRuns();
  const dags = useDags();
  useLive(['queues'], true, '/events/dag-runs?limit=1');
  const names = useMemo(() => [...new Set((runs.data ?? []).map((r) => r.name))], [runs.data]);
  // DAG name -> file name (they differ when a file sets `name:`); a DAG no file has any more keeps its own queue.
  const files = useMemo(() => {
    const byName = new Map((dags.data?.dags ?? []).map((d) => [d.dag.name, d.fileName]));
    return names.flatMap((n) => { const f = byName.get(n); return f ? [[n, f] as const] : []; });
  }, [names, dags.data]);
  const details = useDagDetails(files.map(([, f]) => f));
  const info = useMemo(() => new Map<string, DagQueueInfo>(files.map(([n], i) => {
    const d = details[i]?.data?.dag;
    return [n, { queue: d?.queue, maxActiveRuns: d?.maxActiveRuns }];
  })), [files, details]);
  const waitingForDags = dags.isPending || details.some((d) => d.isPending);
  const queues = useMemo(() => groupQueues(runs.data ?? [], info), [runs.data, info]);
  return (
    <>
      <header className="page-header"><h1>Queues</h1></header>
      {runs.isPending || (runs.data && runs.data.length > 0 && waitingForDags) ? <Loading what="the queues" /> : null}
      {runs.isError ? <ErrorBox error={runs.error} what="the runs" /> : null}
      {runs.data && !waitingForDags ? (
        queues.length === 0 ? <p className="muted" role="status">No run is running or queued.</p> : queues.map((q) => <Queue key={`${q.kind}:${q.name}`} queue={q} />)
      ) : null}
    </>
  );
}

function limitText(q: QueueView): string {
  if (q.limit === 'unlimited') return 'no limit';
  if (q.limit === undefined) return 'limit set by the server (1 unless configured)';
  return `${q.limit} at a time`;
}

function Queue({ queue: q }: { queue: QueueView }) {
  const id = `queue-${q.kind}-${q.name}`;
  return (
    <section className="queue" aria-labelledby={id} data-queue={q.name}>
      <h2 id={id}>{q.name} <span className="muted small">{q.kind === 'dag' ? 'DAG queue' : 'named queue'}</span></h2>
      <p className="muted small">{q.running.length} running · {q.queued.length} queued · {limitText(q)}</p>
      <table className="table queue-runs" aria-label={`Runs of queue ${q.name}`}>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">DAG</th>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col">Queued</th>
            <th scope="col">Started</th>
            <th scope="col"><span className="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {q.running.map((r) => <Row key={`${r.name}/${r.dagRunId}`} run={r} position={undefined} />)}
          {q.queued.map((r, i) => <Row key={`${r.name}/${r.dagRunId}`} run={r} position={i + 1} />)}
        </tbody>
      </table>
    </section>
  );
}

function Row({ run: r, position }: { run: DagRunSummary; position: number | undefined }) {
  return (
    <tr data-run={r.dagRunId} data-status={r.statusLabel}>
      <td className="num">{position ?? ''}</td>
      <td><Link to={`/dags/${encodeURIComponent(r.name)}`}>{r.name}</Link></td>
      <th scope="row"><Link to={`/dag-runs/${encodeURIComponent(r.name)}/${encodeURIComponent(r.dagRunId)}`}><code>{r.dagRunId}</code></Link></th>
      <td><StatusBadge label={r.statusLabel} /></td>
      <td className="nowrap">{formatTime(r.queuedAt)}</td>
      <td className="nowrap">{formatTime(r.startedAt)}</td>
      <td><div className="actions"><RunActions run={r} /></div></td>
    </tr>
  );
}
