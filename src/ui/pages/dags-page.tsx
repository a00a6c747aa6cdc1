/** The DAG list (GET /dags): name, tags, schedule, last run, the schedule switch; a search box. */
import { useDeferredValue, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useLive } from '../api/live';
import { keys, useDags } from '../api/queries';
import type { DagListItem } from '../api/types';
import { ErrorBox, Loading } from '../components/query-state';
import { StatusBadge } from '../components/status-badge';
import { SuspendToggle } from '../components/suspend-toggle';
import { matchesQuery } from '../lib/filter';
import { formatTime } from '../lib/format';
import { useTitle } from '../lib/hooks';
import { isLive } from '../lib/status';
import { useCan } from '../auth/session';

export function DagsPage() {
  useTitle('DAGs');
  const dags = useDags();
  const [params, setParams] = useSearchParams();
  const [query, setQuery] = useState(params.get('q') ?? '');
  const deferred = useDeferredValue(query);
  const manage = useCan('manager');
  const items = useMemo(() => (dags.data?.dags ?? []).filter((d) => matchesQuery(d, deferred)), [dags.data, deferred]);
  useLive(keys.dags, (dags.data?.dags ?? []).some((d) => isLive(d.latestDAGRun)), '/events/dag-runs?limit=1');
  const search = (q: string) => {
    setQuery(q);
    setParams(q ? { q } : {}, { replace: true });
  };
  return (
    <>
      <header className="page-header">
        <h1>DAGs</h1>
        <div className="actions">
          <input
            type="search"
            className="search"
            placeholder="Filter by name or tag"
            aria-label="Filter DAGs by name or tag"
            value={query}
            onChange={(e) => search(e.target.value)}
          />
          {manage ? <Link to="/new-dag" className="button primary">New DAG</Link> : null}
        </div>
      </header>
      {dags.isPending ? <Loading what="DAGs" /> : null}
      {dags.isError ? <ErrorBox error={dags.error} what="the DAGs" /> : null}
      {dags.data && dags.data.errors.length > 0 ? (
        <div className="warning-box" role="status">
          <strong>Some DAG files could not be read:</strong>
          <ul>{dags.data.errors.map((e) => <li key={e}>{e}</li>)}</ul>
        </div>
      ) : null}
      {dags.data ? <DagTable items={items} onTag={(t) => search(t)} total={dags.data.pagination.totalRecords} /> : null}
    </>
  );
}

function DagTable({ items, onTag, total }: { items: DagListItem[]; onTag: (tag: string) => void; total: number }) {
  return (
    <>
      <p className="muted small" aria-live="polite">{items.length === total ? `${total} DAGs` : `${items.length} of ${total} DAGs`}</p>
      <table className="table dags" aria-label="DAGs">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Tags</th>
            <th scope="col">Schedule</th>
            <th scope="col">Last run</th>
            <th scope="col">Scheduled</th>
          </tr>
        </thead>
        <tbody>
          {items.map((d) => <DagRow key={d.fileName} item={d} onTag={onTag} />)}
        </tbody>
      </table>
    </>
  );
}

function DagRow({ item, onTag }: { item: DagListItem; onTag: (tag: string) => void }) {
  const last = item.latestDAGRun;
  return (
    <tr data-dag={item.fileName}>
      <th scope="row">
        <Link to={`/dags/${encodeURIComponent(item.fileName)}`}>{item.dag.name || item.fileName}</Link>
        {item.errors.length > 0 ? <span className="badge tone-fail" title={item.errors.join('\n')}>invalid</span> : null}
        {item.dag.description ? <div className="muted small">{item.dag.description}</div> : null}
      </th>
      <td>
        <ul className="tags" aria-label="Tags">
          {item.dag.tags.map((t) => (
            <li key={t}><button type="button" className="tag" onClick={() => onTag(t)} title={`Show DAGs tagged ${t}`}>{t}</button></li>
          ))}
        </ul>
      </td>
      <td>{item.dag.schedule.map((s) => <code key={s.expression} className="schedule">{s.expression}</code>)}</td>
      <td>
        {last.dagRunId ? (
          <Link to={`/dag-runs/${encodeURIComponent(last.name)}/${encodeURIComponent(last.dagRunId)}`} className="run-link">
            <StatusBadge label={last.statusLabel} /> <span className="muted small">{formatTime(last.startedAt || last.queuedAt)}</span>
          </Link>
        ) : <span className="muted">never run</span>}
      </td>
      <td><SuspendToggle fileName={item.fileName} suspended={item.suspended} /></td>
    </tr>
  );
}
