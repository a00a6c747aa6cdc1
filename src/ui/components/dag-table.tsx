/**
 * The DAG list's table: name, tags, schedule, next run (the server's `nextRun`), last run, the schedule
 * switch. Its rows are virtual: a page of 1,000 DAGs puts a screenful of rows in the DOM.
 */
import { Link } from 'react-router';
import type { DagListItem } from '../api/types';
import { formatTime } from '../lib/format';
import { StatusBadge } from './status-badge';
import { SuspendToggle } from './suspend-toggle';
import { rowCount, VirtualRows, type RowProps } from './virtual-rows';

const COLUMNS = ['Name', 'Tags', 'Schedule', 'Next run', 'Last run', 'Scheduled'];

export function DagTable({ items, onTag }: { items: DagListItem[]; onTag: (tag: string) => void }) {
  return (
    <table className="table dags" aria-label="DAGs" aria-rowcount={rowCount(items.length)}>
      <thead>
        <tr aria-rowindex={1}>{COLUMNS.map((c) => <th key={c} scope="col">{c}</th>)}</tr>
      </thead>
      <VirtualRows items={items} estimate={58} columns={COLUMNS.length} row={(d, props) => <DagRow key={d.fileName} item={d} onTag={onTag} props={props} />} />
    </table>
  );
}

function DagRow({ item, onTag, props }: { item: DagListItem; onTag: (tag: string) => void; props: RowProps }) {
  const last = item.latestDAGRun;
  return (
    <tr data-dag={item.fileName} {...props}>
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
      <td className="next-run">{item.nextRun ? <time dateTime={item.nextRun} className="small">{formatTime(item.nextRun)}</time> : <span className="muted">–</span>}</td>
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
