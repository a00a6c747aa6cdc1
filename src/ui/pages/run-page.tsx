/**
 * One run (GET /dag-runs/{name}/{dagRunId}): header (and its parent, for a sub-DAG run), Stop, graph,
 * timeline, steps and their logs, live; its sub-DAG runs and outputs.
 */
import { Link, useParams } from 'react-router';
import { useLive } from '../api/live';
import { useCan } from '../auth/session';
import { keys, useRun, useStop } from '../api/queries';
import { ErrorBox, Loading } from '../components/query-state';
import { RunSummary } from '../components/run-summary';
import { RunView } from '../components/run-view';
import { RunActions } from '../components/run-actions';
import { OutputsTable } from '../components/outputs-table';
import { SubRuns } from '../components/sub-runs';
import { useTitle } from '../lib/hooks';
import { isLive } from '../lib/status';

export function RunPage() {
  const { name = '', dagRunId = '' } = useParams();
  useTitle(`${name} ${dagRunId}`);
  const run = useRun(name, dagRunId);
  const stop = useStop();
  const operate = useCan('operator');
  const active = isLive(run.data);
  useLive(keys.run(name, dagRunId), active, `/events/dag-runs?name=${encodeURIComponent(name)}&dagRunId=${encodeURIComponent(dagRunId)}`);
  return (
    <>
      <header className="page-header">
        <div>
          <p className="crumbs"><Link to="/dags">DAGs</Link> / <Link to={`/dags/${encodeURIComponent(name)}`}>{name}</Link> /</p>
          <h1>Run <code>{dagRunId}</code></h1>
          {run.data?.parentDAGRunName ? (
            <p className="muted small">A sub-DAG run of <Link to={`/dag-runs/${encodeURIComponent(run.data.parentDAGRunName)}/${encodeURIComponent(run.data.parentDAGRunId)}`}>{run.data.parentDAGRunName} <code>{run.data.parentDAGRunId}</code></Link></p>
          ) : null}
        </div>
        <div className="actions">
          {run.data ? <RunActions run={run.data} /> : null}
          {operate ? <button type="button" className="danger" disabled={!active || stop.isPending} onClick={() => stop.mutate({ name, dagRunId })}>Stop</button> : null}
        </div>
      </header>
      {run.isPending ? <Loading what="the run" /> : null}
      {run.isError ? <ErrorBox error={run.error} what="the run" /> : null}
      {stop.isError ? <ErrorBox error={stop.error} /> : null}
      {run.data ? (
        <>
          <RunSummary run={run.data} />
          <RunView run={run.data} timeline />
          <SubRuns name={name} dagRunId={dagRunId} />
          <OutputsTable run={run.data} />
        </>
      ) : null}
    </>
  );
}
