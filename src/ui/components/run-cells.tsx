/**
 * The cells of a run in a table of runs (the runs list, a run's sub-DAG runs): DAG, run id linking to the
 * run's page, status, start, duration, params.
 */
import { Link } from 'react-router';
import type { DagRunSummary } from '../api/types';
import { elapsed, formatTime } from '../lib/format';
import { StatusBadge } from './status-badge';

type RunRow = Pick<DagRunSummary, 'name' | 'dagRunId' | 'statusLabel' | 'startedAt' | 'queuedAt' | 'finishedAt' | 'params'>;

export function RunCells({ run: r, now }: { run: RunRow; now: number }) {
  return (
    <>
      <td>{r.name}</td>
      <td><Link to={`/dag-runs/${encodeURIComponent(r.name)}/${encodeURIComponent(r.dagRunId)}`}><code>{r.dagRunId}</code></Link></td>
      <td><StatusBadge label={r.statusLabel} /></td>
      <td>{formatTime(r.startedAt || r.queuedAt)}</td>
      <td>{elapsed(r.startedAt, r.finishedAt, now)}</td>
      <td className="muted small">{r.params}</td>
    </>
  );
}
