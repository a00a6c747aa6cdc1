import { Link } from 'react-router';
import type { DagRunDetail } from '../api/types';
import { elapsed, formatTime } from '../lib/format';
import { useNow } from '../lib/hooks';
import { isLive } from '../lib/status';
import { StatusBadge } from './status-badge';

/** One line about a run: status, id (a link to its page), start, duration, params. */
export function RunSummary({ run }: { run: DagRunDetail }) {
  const now = useNow(isLive(run));
  return (
    <dl className="facts run-summary" data-run={run.dagRunId}>
      <dt>Status</dt><dd><StatusBadge label={run.statusLabel} /></dd>
      <dt>Run</dt><dd><Link to={`/dag-runs/${encodeURIComponent(run.name)}/${encodeURIComponent(run.dagRunId)}`}><code>{run.dagRunId}</code></Link></dd>
      <dt>Started</dt><dd>{formatTime(run.startedAt || run.queuedAt)}</dd>
      <dt>Duration</dt><dd>{elapsed(run.startedAt, run.finishedAt, now)}</dd>
      {run.params ? <><dt>Parameters</dt><dd><code>{run.params}</code></dd></> : null}
      {run.error ? <><dt>Error</dt><dd className="error-text">{run.error}</dd></> : null}
    </dl>
  );
}
