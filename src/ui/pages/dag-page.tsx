/**
 * A DAG: its definition's header, Start and Stop; the Overview tab shows its latest run (graph, steps,
 * logs), live, and its history; the Spec tab (`?tab=spec`) its YAML text in the editor.
 */
import { useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useLive } from '../api/live';
import { keys, useDag, useLatestRun, useStop } from '../api/queries';
import { stepFields, type DagDetail, type DagRunDetail } from '../api/types';
import { ErrorBox, Loading } from '../components/query-state';
import { RunView } from '../components/run-view';
import { HistoryGrid } from '../components/history-grid';
import { RunSummary } from '../components/run-summary';
import { SuspendToggle } from '../components/suspend-toggle';
import { useCan } from '../auth/session';
import { useTitle } from '../lib/hooks';
import { isLive } from '../lib/status';
import { StartDialog } from './start-dialog';
import { DagSpec } from './dag-spec';
import { DagAdmin } from './dag-admin';
import { RunActions } from '../components/run-actions';
import { LazyWebhookPanel } from '../components/lazy-admin';
import type { StartMode } from './start-dialog';

export function DagPage() {
  const fileName = useParams().fileName ?? '';
  // A fresh page per DAG: no state of one DAG's page leaks into the next.
  return <DagPageOf key={fileName} fileName={fileName} />;
}

function DagPageOf({ fileName }: { fileName: string }) {
  useTitle(fileName);
  const dag = useDag(fileName);
  const latest = useLatestRun(fileName);
  const run = latest.data ?? null;
  // A run just started is live until `latest` is that run (and then while it is active).
  const [started, setStarted] = useState<string>();
  const dagName = run?.name ?? dag.data?.dag?.name;
  useLive(keys.dagRuns(fileName), isLive(run) || (started !== undefined && run?.dagRunId !== started), dagName ? `/events/dag-runs?limit=1&name=${encodeURIComponent(dagName)}` : undefined);
  if (dag.isPending) return <Loading what={fileName} />;
  if (dag.isError) return <ErrorBox error={dag.error} what={`DAG ${fileName}`} />;
  return <DagBody fileName={fileName} detail={dag.data} run={run} runPending={latest.isPending} onStarted={setStarted} />;
}

/** The tab in the address (`?tab=`); the webhook tab is an admin's only (webhooks need admin, SPEC 4.7). */
function tabOf(tab: string | null, admin: boolean): 'overview' | 'spec' | 'webhook' {
  if (tab === 'spec') return 'spec';
  return tab === 'webhook' && admin ? 'webhook' : 'overview';
}

function DagBody({ fileName, detail, run, runPending, onStarted }: {
  fileName: string; detail: DagDetail; run: DagRunDetail | null; runPending: boolean; onStarted: (dagRunId: string) => void;
}) {
  const [starting, setStarting] = useState<StartMode>();
  const stop = useStop();
  const operate = useCan('operator');
  const manage = useCan('manager');
  const admin = useCan('admin');
  const steps = useMemo(() => (detail.dag.steps ?? []).map(stepFields), [detail]);
  const active = isLive(run);
  const d = detail.dag;
  const tab = tabOf(useSearchParams()[0].get('tab'), admin);
  return (
    <>
      <header className="page-header">
        <div>
          <p className="crumbs"><Link to="/dags">DAGs</Link> /</p>
          <h1>{d.name || fileName}</h1>
          {d.description ? <p className="muted">{d.description}</p> : null}
        </div>
        <div className="actions">
          <SuspendToggle fileName={fileName} suspended={detail.suspended} />
          {operate ? <button type="button" className="primary" onClick={() => setStarting('start')}>Start</button> : null}
          {operate ? <button type="button" onClick={() => setStarting('enqueue')}>Enqueue</button> : null}
          {operate ? <button type="button" className="danger" disabled={!active || !run || stop.isPending} onClick={() => run && stop.mutate({ name: run.name, dagRunId: run.dagRunId })}>Stop</button> : null}
          {manage ? <DagAdmin fileName={fileName} /> : null}
        </div>
      </header>
      <dl className="facts">
        {d.tags.length ? <><dt>Tags</dt><dd>{d.tags.join(', ')}</dd></> : null}
        {d.schedule.length ? <><dt>Schedule</dt><dd>{d.schedule.map((s) => s.expression).join(', ')}</dd></> : null}
        {d.defaultParams ? <><dt>Parameters</dt><dd><code>{d.defaultParams}</code></dd></> : null}
      </dl>
      {detail.errors.length > 0 ? <div className="error-box" role="alert"><strong>This DAG has errors:</strong><ul>{detail.errors.map((e) => <li key={e}>{e}</li>)}</ul></div> : null}
      {stop.isError ? <ErrorBox error={stop.error} /> : null}
      <nav className="tabs" aria-label="DAG views">
        <Link to={{ search: '' }} aria-current={tab === 'overview' ? 'page' : undefined}>Overview</Link>
        <Link to={{ search: '?tab=spec' }} aria-current={tab === 'spec' ? 'page' : undefined}>Spec</Link>
        {admin ? <Link to={{ search: '?tab=webhook' }} aria-current={tab === 'webhook' ? 'page' : undefined}>Webhook</Link> : null}
      </nav>
      {tab === 'webhook' ? <LazyWebhookPanel fileName={fileName} /> : null}
      {tab === 'spec' ? <DagSpec fileName={fileName} /> : null}
      {tab === 'overview' ? (
        <>
          <section aria-labelledby="latest-title">
            <h2 id="latest-title">Latest run</h2>
            {run ? <div className="run-header"><RunSummary run={run} /><div className="actions"><RunActions run={run} onNewRun={onStarted} /></div></div> : <p className="muted">{runPending ? 'Loading…' : 'Not run yet.'}</p>}
            <RunView run={run} steps={steps} />
          </section>
          <section aria-labelledby="history-title">
            <h2 id="history-title">History</h2>
            <HistoryGrid fileName={fileName} />
          </section>
        </>
      ) : null}
      <StartDialog fileName={fileName} detail={detail} open={starting !== undefined} mode={starting ?? 'start'} onClose={() => setStarting(undefined)} onStarted={(id) => { setStarting(undefined); onStarted(id); }} />
    </>
  );
}
