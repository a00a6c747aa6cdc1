/**
 * The Start dialog of a DAG: parameters prefilled with the DAG's defaults, an optional run id. The
 * DAG's runConfig can lock either (disableParamEdit, disableRunIdEdit): the field is then shown read-only
 * or left out, and the defaults are what runs. In `enqueue` mode the same form puts the run in its queue
 * (POST /dags/{fileName}/enqueue), with an optional queue name in place of the DAG's.
 */
import { useState, type FormEvent } from 'react';
import { useEnqueue, useStart } from '../api/queries';
import type { DagDetail } from '../api/types';
import { Dialog } from '../components/dialog';
import { ErrorBox } from '../components/query-state';

export type StartMode = 'start' | 'enqueue';

export function StartDialog({ fileName, detail, open, onClose, onStarted, mode = 'start' }: {
  fileName: string; detail: DagDetail; open: boolean; onClose: () => void; onStarted: (dagRunId: string) => void; mode?: StartMode;
}) {
  return (
    <Dialog open={open} title={`${mode === 'start' ? 'Start' : 'Enqueue'} ${detail.dag.name || fileName}`} onClose={onClose}>
      <StartForm fileName={fileName} detail={detail} onCancel={onClose} onStarted={onStarted} mode={mode} />
    </Dialog>
  );
}

function StartForm({ fileName, detail, onCancel, onStarted, mode }: { fileName: string; detail: DagDetail; onCancel: () => void; onStarted: (id: string) => void; mode: StartMode }) {
  const rc = detail.dag.runConfig ?? {};
  const [params, setParams] = useState(detail.dag.defaultParams);
  const [runId, setRunId] = useState('');
  const [queue, setQueue] = useState('');
  const startRun = useStart();
  const enqueue = useEnqueue();
  const start = mode === 'start' ? startRun : enqueue;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const input = { fileName, ...(rc.disableParamEdit ? {} : { params }), ...(!rc.disableRunIdEdit && runId.trim() ? { dagRunId: runId.trim() } : {}) };
    const done = { onSuccess: (r: { dagRunId: string }) => onStarted(r.dagRunId) };
    if (mode === 'start') startRun.mutate(input, done);
    else enqueue.mutate({ ...input, ...(queue.trim() ? { queue: queue.trim() } : {}) }, done);
  };
  return (
    <form onSubmit={submit} className="form">
      <label className="field">
        <span>Parameters</span>
        <textarea
          name="params"
          rows={Math.min(8, Math.max(2, params.split('\n').length + 1))}
          value={params}
          readOnly={rc.disableParamEdit}
          aria-describedby="params-help"
          onChange={(e) => setParams(e.target.value)}
          spellCheck={false}
        />
        <small id="params-help" className="muted">
          {rc.disableParamEdit ? 'This DAG runs with its default parameters (runConfig.disableParamEdit).' : 'KEY=value pairs separated by spaces, positional values, or a JSON object.'}
        </small>
      </label>
      {rc.disableRunIdEdit ? null : (
        <label className="field">
          <span>Run id <span className="muted">(optional)</span></span>
          <input name="dagRunId" value={runId} onChange={(e) => setRunId(e.target.value)} pattern="[a-zA-Z0-9_.\-]{1,64}" placeholder="generated when empty" spellCheck={false} />
        </label>
      )}
      {mode === 'enqueue' ? (
        <label className="field">
          <span>Queue <span className="muted">(optional)</span></span>
          <input name="queue" value={queue} onChange={(e) => setQueue(e.target.value)} pattern="[a-zA-Z0-9_.\-]{1,64}" placeholder={detail.dag.queue ?? 'the DAG\'s queue'} spellCheck={false} />
        </label>
      ) : null}
      {start.isError ? <ErrorBox error={start.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onCancel}>Cancel</button>
        <button type="submit" className="primary" disabled={start.isPending}>
          {mode === 'start' ? (start.isPending ? 'Starting…' : 'Start') : (start.isPending ? 'Enqueueing…' : 'Enqueue')}
        </button>
      </div>
    </form>
  );
}
