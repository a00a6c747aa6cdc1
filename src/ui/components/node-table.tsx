/** The steps of a run as a table: status, times, exit code, error; a step's name opens its logs. */
import type { NodeRecord } from '../api/types';
import { elapsed, exitCodeOf, formatTime } from '../lib/format';
import { StatusBadge } from './status-badge';

export interface NodeRow {
  node: NodeRecord;
  /** A lifecycle handler ("onExit"...) rather than a step of the graph. */
  handler?: boolean;
}

export function NodeTable({ rows, selected, onSelect, now }: { rows: NodeRow[]; selected?: string | undefined; onSelect: (step: string) => void; now: number }) {
  return (
    <table className="table nodes" aria-label="Steps of the run">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Status</th>
          <th scope="col">Started</th>
          <th scope="col">Finished</th>
          <th scope="col">Duration</th>
          <th scope="col">Exit code</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ node, handler }) => {
          const name = node.step.name;
          const code = exitCodeOf(node);
          return (
            <tr key={name} data-step={name} className={name === selected ? 'selected' : undefined}>
              <th scope="row">
                <button type="button" className="link-button" aria-pressed={name === selected} onClick={() => onSelect(name)}>{name}</button>
                {handler ? <span className="muted small"> handler</span> : null}
              </th>
              <td><StatusBadge label={node.statusLabel} /></td>
              <td className="nowrap">{formatTime(node.startedAt)}</td>
              <td className="nowrap">{formatTime(node.finishedAt)}</td>
              <td className="nowrap">{elapsed(node.startedAt, node.finishedAt, now)}</td>
              <td className="num">{code ?? '—'}</td>
              <td className="error-cell">{node.error}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
