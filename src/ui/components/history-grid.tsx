/**
 * A DAG's history grid (GET /dags/{fileName}/dag-runs: SPEC gridData): one row per step, one column per
 * recent run (newest first), each cell the step's status in that run, as a coloured square with its word
 * for screen readers and as a tooltip. A column's header links to its run.
 */
import { Link } from 'react-router';
import { useDagHistory } from '../api/queries';
import { labelText, nodeLabelOf, toneOf } from '../lib/status';
import { ErrorBox, Loading } from './query-state';

export function HistoryGrid({ fileName }: { fileName: string }) {
  const history = useDagHistory(fileName);
  if (history.isPending) return <Loading what="the history" />;
  if (history.isError) return <ErrorBox error={history.error} what="the history" />;
  const { dagRuns, gridData } = history.data;
  if (dagRuns.length === 0) return <p className="muted">No runs yet.</p>;
  return (
    <div className="grid-scroll">
      <table className="history-grid" aria-label="Step statuses of recent runs">
        <thead>
          <tr>
            <th scope="col">Step</th>
            {dagRuns.map((r, i) => (
              <th key={r.dagRunId} scope="col">
                <Link to={`/dag-runs/${encodeURIComponent(r.name)}/${encodeURIComponent(r.dagRunId)}`} title={`${r.dagRunId}: ${labelText(r.statusLabel)}`} aria-label={`run ${r.dagRunId}`}>
                  {i + 1}
                </Link>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {gridData.map((row) => (
            <tr key={row.name} data-step={row.name}>
              <th scope="row">{row.name}</th>
              {row.history.map((status, i) => {
                const label = nodeLabelOf(status);
                return (
                  <td key={dagRuns[i]?.dagRunId ?? i}>
                    <span className={`cell tone-${toneOf(label)}`} data-status={label} title={`${dagRuns[i]?.dagRunId ?? ''}: ${labelText(label)}`}>
                      <span className="visually-hidden">{labelText(label)}</span>
                    </span>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
