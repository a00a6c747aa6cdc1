/**
 * The dashboard (`/`): today's runs by status and over time (a page of the newest: the API's `limit`, never
 * every run of a busy day), the runs that are running, queued or waiting, the workers, and the machine's
 * resources (GET /services/resources/history) as small charts. Live through the run event stream;
 * resources refresh every 30 s.
 */
import { useMemo } from 'react';
import { Link } from 'react-router';
import { useLive } from '../api/live';
import { DASHBOARD_RUNS, useActiveRuns, useResources, useRunsPage } from '../api/queries';
import type { DagRunSummary } from '../api/types';
import { ErrorBox, Loading } from '../components/query-state';
import { DayTimeline } from '../components/day-timeline';
import { Sparkline } from '../components/sparkline';
import { StatusBadge } from '../components/status-badge';
import { Workers } from '../components/workers-table';
import { formatTime } from '../lib/format';
import { useNow, useTitle } from '../lib/hooks';
import { isActive, RUN_STATUSES, toneOf } from '../lib/status';

const RUNS_KEY = ['runs'] as const;

/** Midnight today, local time, in Unix seconds (the day the dashboard counts). */
export function startOfToday(now = new Date()): number {
  return Math.floor(new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime() / 1000);
}

export function DashboardPage() {
  useTitle('Dashboard');
  const filter = useMemo(() => ({ fromDate: startOfToday() }), []);
  const today = useRunsPage(filter);
  const active = useActiveRuns();
  // Today's page and the active runs are both under ['runs']: one event stream refreshes both.
  useLive(RUNS_KEY, true, '/events/dag-runs?limit=1');
  const runs = today.data?.runs ?? [];
  const now = useNow(runs.some((r) => isActive(r.statusLabel)));
  return (
    <>
      <header className="page-header"><h1>Dashboard</h1></header>
      <section aria-labelledby="today-title">
        <h2 id="today-title">Today</h2>
        {today.isPending ? <Loading what="today's runs" /> : null}
        {today.isError ? <ErrorBox error={today.error} what="today's runs" /> : null}
        {today.data?.more ? <p className="muted small" role="note">Counted and drawn: the newest {DASHBOARD_RUNS} runs of today; <Link to={`/dag-runs?from=${localDay()}`}>the runs list</Link> has them all.</p> : null}
        {today.data ? <StatusCounts runs={runs} /> : null}
      </section>
      <section aria-labelledby="day-timeline-title">
        <h2 id="day-timeline-title">Today&apos;s runs over time</h2>
        {today.data ? <DayTimeline runs={runs} now={now} /> : null}
      </section>
      <section aria-labelledby="active-title">
        <h2 id="active-title">Running, queued and waiting</h2>
        {active.isError ? <ErrorBox error={active.error} what="the active runs" /> : null}
        {active.data ? <ActiveRuns runs={active.data} /> : null}
      </section>
      <section aria-labelledby="workers-title">
        <h2 id="workers-title"><Link to="/workers">Workers</Link></h2>
        <Workers />
      </section>
      <section aria-labelledby="resources-title">
        <h2 id="resources-title">Resources</h2>
        <Resources />
      </section>
    </>
  );
}

function StatusCounts({ runs }: { runs: DagRunSummary[] }) {
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.statusLabel, (counts.get(r.statusLabel) ?? 0) + 1);
  return (
    <ul className="counts" aria-label="Runs today by status">
      <li className="count"><span className="count-value">{runs.length}</span> runs</li>
      {RUN_STATUSES.filter((s) => counts.has(s.label)).map((s) => (
        <li key={s.label} className={`count tone-${toneOf(s.label)}`} data-status={s.label}>
          <Link to={`/dag-runs?status=${s.code}&from=${localDay()}`}><span className="count-value">{counts.get(s.label)}</span> {s.label.replace('_', ' ')}</Link>
        </li>
      ))}
    </ul>
  );
}

const localDay = (d = new Date()): string => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

function ActiveRuns({ runs }: { runs: DagRunSummary[] }) {
  if (runs.length === 0) return <p className="muted">Nothing is running.</p>;
  return (
    <table className="table" aria-label="Active runs">
      <thead><tr><th scope="col">DAG</th><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Since</th></tr></thead>
      <tbody>
        {runs.map((r) => (
          <tr key={`${r.name}/${r.dagRunId}`} data-run={r.dagRunId}>
            <td>{r.name}</td>
            <td><Link to={`/dag-runs/${encodeURIComponent(r.name)}/${encodeURIComponent(r.dagRunId)}`}><code>{r.dagRunId}</code></Link></td>
            <td><StatusBadge label={r.statusLabel} /></td>
            <td>{formatTime(r.startedAt || r.queuedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Resources() {
  const res = useResources();
  if (res.isPending) return <Loading what="resources" />;
  if (res.isError) return <ErrorBox error={res.error} what="the resources" />;
  const charts = [['CPU', res.data.cpu, '%'], ['Memory', res.data.memory, '%'], ['Disk', res.data.disk, '%'], ['Load', res.data.load, '']] as const;
  return (
    <div className="charts">
      {charts.map(([label, samples, unit]) => <Sparkline key={label} label={label} unit={unit} values={samples.map((s) => s.value)} />)}
    </div>
  );
}
