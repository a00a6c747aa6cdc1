/**
 * The workers (`/workers`): the server's health (GET /health) and every worker (GET /workers): health by
 * the age of its last heartbeat (SPEC 3.4), labels, the tasks it runs (each a link to its run). Refreshed
 * every 2 s and on run changes. The table is the dashboard's (components/workers-table.tsx), with the tasks listed.
 */
import { useLive } from '../api/live';
import { useHealth } from '../api/queries';
import { ErrorBox, Loading } from '../components/query-state';
import { Workers } from '../components/workers-table';
import { formatDuration, formatTime } from '../lib/format';
import { useTitle } from '../lib/hooks';

export function WorkersPage() {
  useTitle('Workers');
  // A run that starts or ends changes a worker's tasks: the run event stream refetches them. A worker's
  // task list may trail the run's status by a moment, so the table is also read every 2 s (Workers).
  useLive(['workers'], true, '/events/dag-runs?limit=1');
  return (
    <>
      <header className="page-header"><h1>Workers</h1></header>
      <section aria-labelledby="server-title">
        <h2 id="server-title">Server</h2>
        <ServerHealth />
      </section>
      <section aria-labelledby="workers-title">
        <h2 id="workers-title">Workers</h2>
        <Workers tasks />
      </section>
    </>
  );
}

function ServerHealth() {
  const health = useHealth();
  if (health.isPending) return <Loading what="the server's health" />;
  if (health.isError) return <ErrorBox error={health.error} what="the server's health" />;
  const h = health.data;
  return (
    <dl className="facts" aria-label="Server health" data-health={h.status}>
      <dt>Status</dt><dd><span className={`badge tone-${h.status === 'healthy' ? 'ok' : 'fail'}`}>{h.status}</span>{h.error ? <span className="error-text"> {h.error}</span> : null}</dd>
      <dt>Version</dt><dd><code>{h.version}</code></dd>
      <dt>Up for</dt><dd>{formatDuration(h.uptime * 1000)}</dd>
      <dt>Checked</dt><dd>{formatTime(h.timestamp)}</dd>
    </dl>
  );
}
