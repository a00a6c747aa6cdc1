/**
 * What an operator can do to a run besides Stop, each confirmed in a dialog: Retry a finished run (a new
 * attempt under the same id, or a new run under another id), Retry one step of it, set a step's status by
 * hand on a finished run, Dequeue a queued run.
 * Shown only to sessions with the operator role or above (the server checks again).
 */
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useDequeue, useRetry, useSetStepStatus } from '../api/queries';
import type { DagRunDetail } from '../api/types';
import { useCan } from '../auth/session';
import { isFinished, labelText, type StatusLabel } from '../lib/status';
import { Dialog } from './dialog';
import { ErrorBox } from './query-state';

type RunRef = Pick<DagRunDetail, 'name' | 'dagRunId' | 'statusLabel'>;

const runPath = (name: string, id: string) => `/dag-runs/${encodeURIComponent(name)}/${encodeURIComponent(id)}`;

/** Retry and Dequeue buttons of a run (whichever its status allows). `onNewRun`: a retry made a new run. */
export function RunActions({ run, onNewRun }: { run: RunRef; onNewRun?: (dagRunId: string) => void }) {
  const operate = useCan('operator');
  const [open, setOpen] = useState<'retry' | 'dequeue'>();
  if (!operate) return null;
  const close = () => setOpen(undefined);
  return (
    <>
      {isFinished(run.statusLabel) ? <button type="button" onClick={() => setOpen('retry')}>Retry</button> : null}
      {run.statusLabel === 'queued' ? <button type="button" className="danger" onClick={() => setOpen('dequeue')}>Dequeue</button> : null}
      <Dialog open={open === 'retry'} title={`Retry run ${run.dagRunId}`} onClose={close}>
        <RetryForm run={run} onDone={close} onNewRun={onNewRun} />
      </Dialog>
      <Dialog open={open === 'dequeue'} title={`Dequeue run ${run.dagRunId}?`} onClose={close}>
        <DequeueForm run={run} onDone={close} />
      </Dialog>
    </>
  );
}

function RetryForm({ run, step, onDone, onNewRun }: { run: RunRef; step?: string; onDone: () => void; onNewRun?: ((id: string) => void) | undefined }) {
  const retry = useRetry();
  const navigate = useNavigate();
  const [asNew, setAsNew] = useState(false);
  const [newId, setNewId] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const newDagRunId = asNew && newId.trim() ? newId.trim() : undefined;
    retry.mutate({ name: run.name, dagRunId: run.dagRunId, ...(newDagRunId ? { newDagRunId } : {}), ...(step ? { stepName: step } : {}) }, {
      onSuccess: (r) => {
        onDone();
        if (r.dagRunId === run.dagRunId) return;
        if (onNewRun) onNewRun(r.dagRunId);
        else void navigate(runPath(run.name, r.dagRunId));
      },
    });
  };
  return (
    <form className="form" onSubmit={submit}>
      <p>
        {step ? <>Step <code>{step}</code> runs again; the other steps keep their results.</> : <>The steps that did not succeed, and the steps after them, run again; the others keep their results.</>}
      </p>
      <fieldset className="choices">
        <legend>As</legend>
        <label><input type="radio" name="as" checked={!asNew} onChange={() => setAsNew(false)} /> a new attempt of run <code>{run.dagRunId}</code></label>
        <label><input type="radio" name="as" checked={asNew} onChange={() => setAsNew(true)} /> a new run, this one kept as it is</label>
      </fieldset>
      {asNew ? (
        <label className="field">
          <span>New run id</span>
          <input name="newDagRunId" value={newId} required onChange={(e) => setNewId(e.target.value)} pattern="[a-zA-Z0-9_.\-]{1,64}" spellCheck={false} />
        </label>
      ) : null}
      {retry.isError ? <ErrorBox error={retry.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onDone}>Cancel</button>
        <button type="submit" className="primary" disabled={retry.isPending}>{retry.isPending ? 'Retrying…' : 'Retry'}</button>
      </div>
    </form>
  );
}

function DequeueForm({ run, onDone }: { run: RunRef; onDone: () => void }) {
  const dequeue = useDequeue();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    dequeue.mutate({ name: run.name, dagRunId: run.dagRunId }, { onSuccess: onDone });
  };
  return (
    <form className="form" onSubmit={submit}>
      <p>Run <code>{run.dagRunId}</code> of {run.name} leaves its queue and never runs (it ends aborted).</p>
      {dequeue.isError ? <ErrorBox error={dequeue.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onDone}>Cancel</button>
        <button type="submit" className="danger" disabled={dequeue.isPending}>{dequeue.isPending ? 'Dequeueing…' : 'Dequeue'}</button>
      </div>
    </form>
  );
}

/** "Retry step" of a finished run's step (the step's log panel has it). */
export function RetryStep({ run, step }: { run: RunRef; step: string }) {
  const operate = useCan('operator');
  const [open, setOpen] = useState(false);
  if (!operate) return null;
  // The dialog stays while the run changes under it (it closes when the server has answered).
  return (
    <>
      {isFinished(run.statusLabel) ? <button type="button" onClick={() => setOpen(true)}>Retry step</button> : null}
      <Dialog open={open} title={`Retry step ${step}`} onClose={() => setOpen(false)}>
        <RetryForm run={run} step={step} onDone={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

/**
 * The step statuses a user may set (SPEC 3.2 codes): not running (1), which only a run's driver sets;
 * the API takes 0-5.
 */
const SETTABLE: readonly { code: number; label: StatusLabel }[] = [
  { code: 4, label: 'succeeded' }, { code: 2, label: 'failed' }, { code: 3, label: 'aborted' }, { code: 5, label: 'skipped' }, { code: 0, label: 'not_started' },
];

/** "Set status" of a finished run's step (the step's log panel has it): PATCH .../steps/{step}/status. */
export function SetStepStatus({ run, step, current }: { run: RunRef; step: string; current: StatusLabel | undefined }) {
  const operate = useCan('operator');
  const [open, setOpen] = useState(false);
  if (!operate || !isFinished(run.statusLabel)) return null;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>Set status</button>
      <Dialog open={open} title={`Set the status of step ${step}`} onClose={() => setOpen(false)}>
        <StepStatusForm run={run} step={step} current={current} onDone={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

function StepStatusForm({ run, step, current, onDone }: { run: RunRef; step: string; current: StatusLabel | undefined; onDone: () => void }) {
  const set = useSetStepStatus();
  const [code, setCode] = useState(() => (current === 'succeeded' ? 2 : 4));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate({ name: run.name, dagRunId: run.dagRunId, step, status: code }, { onSuccess: onDone });
  };
  return (
    <form className="form" onSubmit={submit}>
      <p>
        Step <code>{step}</code> of run <code>{run.dagRunId}</code> is {labelText(current)}. Nothing runs again: the step is only
        recorded with the status chosen, and the run&apos;s status is worked out again from its steps.
      </p>
      <label className="field">
        <span>New status</span>
        <select name="status" value={code} onChange={(e) => setCode(Number(e.target.value))}>
          {SETTABLE.map((s) => <option key={s.code} value={s.code}>{labelText(s.label)}</option>)}
        </select>
      </label>
      {set.isError ? <ErrorBox error={set.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onDone}>Cancel</button>
        <button type="submit" className="primary" disabled={set.isPending}>{set.isPending ? 'Setting…' : 'Set status'}</button>
      </div>
    </form>
  );
}
