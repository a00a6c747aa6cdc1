/**
 * A step's stdout or stderr, a page at a time (GET /dag-runs/{name}/{id}/steps/{step}/log): its tail by
 * default, followed live while the step may still write; Earlier and Later page through it, First and
 * Latest jump to its head and back to the followed tail.
 */
import { useState, type ReactNode } from 'react';
import { useLive } from '../api/live';
import { keys, LOG_PAGE, useStepLog } from '../api/queries';
import type { LogPage } from '../api/types';
import { logPlace, TAIL, type LogWindow } from '../lib/log-window';
import { ErrorBox, Loading } from './query-state';

type Stream = 'stdout' | 'stderr';

export function StepLog({ name, dagRunId, step, live, onClose, actions }: {
  name: string; dagRunId: string; step: string; live: boolean; onClose: () => void; actions?: ReactNode;
}) {
  const [stream, setStream] = useState<Stream>('stdout');
  const [view, setView] = useState<LogWindow>(TAIL);
  const log = useStepLog(name, dagRunId, step, stream, view);
  useLive(keys.log(name, dagRunId, step, stream), live, `/events/dag-runs/${encodeURIComponent(name)}/${encodeURIComponent(dagRunId)}/steps/${encodeURIComponent(step)}/log?stream=${stream}`);
  const page = log.data;
  const pick = (s: Stream) => {
    setStream(s);
    setView(TAIL);
  };
  return (
    <section className="panel step-log" aria-labelledby="step-log-title">
      <header className="panel-header">
        <h3 id="step-log-title">Logs of <code>{step}</code></h3>
        <div className="segmented" role="group" aria-label="Stream">
          {(['stdout', 'stderr'] as const).map((s) => (
            <button key={s} type="button" aria-pressed={stream === s} onClick={() => pick(s)}>{s}</button>
          ))}
        </div>
        {actions}
        <button type="button" className="ghost" onClick={onClose} aria-label="Close logs">Close</button>
      </header>
      {log.isPending ? <Loading what={stream} /> : null}
      {log.isError ? <ErrorBox error={log.error} what={stream} /> : null}
      {page ? (
        <>
          <LogPager page={page} view={view} onView={setView} />
          <pre className="log" data-stream={stream} aria-label={`${stream} of ${step}`} tabIndex={0} aria-busy={log.isPlaceholderData}>
            {page.content || <span className="muted">({stream} is empty)</span>}
          </pre>
        </>
      ) : null}
    </section>
  );
}

/** Where the page is in the log, and the buttons to the pages around it (none for a log of one page). */
function LogPager({ page, view, onView }: { page: LogPage; view: LogWindow; onView: (w: LogWindow) => void }) {
  const place = logPlace(view, page, LOG_PAGE);
  const tail = view.at === 'tail';
  if (tail && !place.earlier) return null;
  const about = page.isEstimate ? 'about ' : '';
  return (
    <nav className="log-pager" aria-label="Log pages">
      <span className="muted small" aria-live="polite">
        Lines {place.first}–{place.last} of {about}{page.totalLines}{tail ? ' (the latest, followed)' : ''}
      </span>
      <button type="button" className="ghost" disabled={place.first <= 1} onClick={() => onView({ at: 1 })}>First</button>
      <button type="button" className="ghost" disabled={!place.earlier} onClick={() => place.earlier && onView(place.earlier)}>Earlier</button>
      <button type="button" className="ghost" disabled={!place.later} onClick={() => place.later && onView(place.later)}>Later</button>
      <button type="button" className="ghost" disabled={tail} onClick={() => onView(TAIL)}>Latest</button>
    </nav>
  );
}
