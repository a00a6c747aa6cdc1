/**
 * A run's timeline (Gantt): a row per step, its bar from its start to its finish, coloured by its status
 * (and its status written in the row's label), growing live while the step runs. Plain elements and CSS
 * (no chart library); each bar's accessible name says the step, its status, start and duration.
 */
import type { NodeRecord } from '../api/types';
import { formatDuration, formatTime } from '../lib/format';
import { labelText, toneOf } from '../lib/status';
import { timeline } from '../lib/timeline';

/** A time on the axis: tenths of a second under 10 s (the half of a 3 s run is 1.5s, not 1s). */
function axisTime(ms: number): string {
  return ms >= 1000 && ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : formatDuration(ms);
}

/** `nodes`: the run's steps then its handlers, as the node table lists them; a step's name opens its logs. */
export function RunTimeline({ nodes: rows, now, selected, onSelect }: { nodes: readonly NodeRecord[]; now: number; selected: string | undefined; onSelect: (step: string) => void }) {
  const t = timeline(rows.map((n) => ({ name: n.step.name, startedAt: n.startedAt, finishedAt: n.finishedAt })), now);
  if (t.startMs === undefined) return null;
  return (
    <section className="timeline" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <div className="timeline-axis muted small" aria-hidden="true">
        <span>{formatTime(new Date(t.startMs).toISOString())}</span>
        <span>+{axisTime(t.spanMs / 2)}</span>
        <span>+{axisTime(t.spanMs)}</span>
      </div>
      <ol className="timeline-rows" aria-label="Steps over time">
        {rows.map((n, i) => {
          const bar = t.bars[i];
          const status = labelText(n.statusLabel);
          const label = bar?.fromMs === undefined
            ? `${n.step.name}: ${status}, not started`
            : `${n.step.name}: ${status}, started at +${formatDuration(bar.fromMs)}, ${bar.open ? 'running for' : 'took'} ${formatDuration((bar.toMs ?? 0) - bar.fromMs)}`;
          return (
            <li key={n.step.name} className="timeline-row" data-step={n.step.name} data-status={n.statusLabel}>
              <span className="timeline-name">
                <button type="button" className="link-button" aria-pressed={n.step.name === selected} onClick={() => onSelect(n.step.name)}>{n.step.name}</button>
              </span>
              <span className="timeline-track">
                {bar?.fromMs === undefined ? <span className="muted small">{status}</span> : (
                  <span role="img" aria-label={label} title={label} className={`timeline-bar tone-${toneOf(n.statusLabel)}${bar.open ? ' open' : ''}`}
                    style={{ left: `${bar.left}%`, width: `${bar.width}%` }} />
                )}
              </span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
