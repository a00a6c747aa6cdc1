/** A step's stdout or stderr (the tail of it), through GET /dag-runs/{name}/{id}/steps/{step}/log. */
import { useState, type ReactNode } from 'react';
import { useLive } from '../api/live';
import { keys, useStepLog } from '../api/queries';
import { ErrorBox, Loading } from './query-state';

type Stream = 'stdout' | 'stderr';

export function StepLog({ name, dagRunId, step, live, onClose, actions }: {
  name: string; dagRunId: string; step: string; live: boolean; onClose: () => void; actions?: ReactNode;
}) {
  const [stream, setStream] = useState<Stream>('stdout');
  const log = useStepLog(name, dagRunId, step, stream);
  useLive(keys.log(name, dagRunId, step, stream), live, `/events/dag-runs/${encodeURIComponent(name)}/${encodeURIComponent(dagRunId)}/steps/${encodeURIComponent(step)}/log?stream=${stream}`);
  const page = log.data;
  return (
    <section className="panel step-log" aria-labelledby="step-log-title">
      <header className="panel-header">
        <h3 id="step-log-title">Logs of <code>{step}</code></h3>
        <div className="segmented" role="group" aria-label="Stream">
          {(['stdout', 'stderr'] as const).map((s) => (
            <button key={s} type="button" aria-pressed={stream === s} onClick={() => setStream(s)}>{s}</button>
          ))}
        </div>
        {actions}
        <button type="button" className="ghost" onClick={onClose} aria-label="Close logs">Close</button>
      </header>
      {log.isPending ? <Loading what={stream} /> : null}
      {log.isError ? <ErrorBox error={log.error} what={stream} /> : null}
      {page ? (
        <>
          {page.hasMore ? <p className="muted small">The last {page.lineCount} of {page.totalLines} lines.</p> : null}
          <pre className="log" data-stream={stream} aria-label={`${stream} of ${step}`} tabIndex={0}>
            {page.content || <span className="muted">({stream} is empty)</span>}
          </pre>
        </>
      ) : null}
    </section>
  );
}
