/**
 * The day's runs over time (the dashboard): a row per DAG, a bar per run from its start to its end (to now
 * while it runs, striped), coloured by status; each bar is a link to its run, named for screen readers
 * ("hello run-1: succeeded, started 10:02:03, took 3s"). The geometry is the run timeline's
 * (lib/timeline.ts), over runs instead of steps. Runs that have not started have no bar.
 */
import { Link } from 'react-router';
import type { DagRunSummary } from '../api/types';
import { formatDuration, formatTime } from '../lib/format';
import { labelText, toneOf } from '../lib/status';
import { timeline, type Bar } from '../lib/timeline';

const runPath = (r: DagRunSummary) => `/dag-runs/${encodeURIComponent(r.name)}/${encodeURIComponent(r.dagRunId)}`;

export function DayTimeline({ runs, now }: { runs: readonly DagRunSummary[]; now: number }) {
  const t = timeline(runs.map((r) => ({ name: `${r.name}/${r.dagRunId}`, startedAt: r.startedAt, finishedAt: r.finishedAt })), now);
  if (t.startMs === undefined) return <p className="muted">No run has started today.</p>;
  const rows = new Map<string, { run: DagRunSummary; bar: Bar }[]>();
  runs.forEach((run, i) => {
    const bar = t.bars[i];
    if (bar?.fromMs === undefined) return;
    rows.set(run.name, [...(rows.get(run.name) ?? []), { run, bar }]);
  });
  return (
    <div className="day-timeline">
      <div className="timeline-axis muted small" aria-hidden="true">
        <span>{formatTime(new Date(t.startMs).toISOString())}</span>
        <span>{formatTime(new Date(t.startMs + t.spanMs / 2).toISOString())}</span>
        <span>{formatTime(new Date(t.startMs + t.spanMs).toISOString())}</span>
      </div>
      <ol className="timeline-rows" aria-label="Today's runs over time">
        {[...rows.keys()].sort().map((dag) => (
          <li key={dag} className="timeline-row" data-dag={dag}>
            <span className="timeline-name"><Link to={`/dags/${encodeURIComponent(dag)}`}>{dag}</Link></span>
            <span className="timeline-track">
              {(rows.get(dag) ?? []).map(({ run, bar }) => {
                const label = `${run.name} ${run.dagRunId}: ${labelText(run.statusLabel)}, started ${formatTime(run.startedAt)}, ${bar.open ? 'running for' : 'took'} ${formatDuration((bar.toMs ?? 0) - (bar.fromMs ?? 0))}`;
                return (
                  <Link key={run.dagRunId} to={runPath(run)} aria-label={label} title={label} data-run={run.dagRunId} data-status={run.statusLabel}
                    className={`timeline-bar tone-${toneOf(run.statusLabel)}${bar.open ? ' open' : ''}`} style={{ left: `${bar.left}%`, width: `${bar.width}%` }} />
                );
              })}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}
