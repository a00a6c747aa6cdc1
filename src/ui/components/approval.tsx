/**
 * A waiting approval step (SPEC 2.6 hitl): its prompt, a field per input it asks for (the required ones
 * marked and checked before sending), Approve, and Reject with an optional reason. The server checks the
 * inputs again and says what is wrong; its answer is shown.
 */
import { useState, type FormEvent } from 'react';
import { useDecide } from '../api/queries';
import { ErrorBox } from './query-state';

interface HitlConfig {
  prompt?: unknown;
  input?: unknown;
  required?: unknown;
}

const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export function ApprovalPanel({ name, dagRunId, step, config }: { name: string; dagRunId: string; step: string; config: HitlConfig }) {
  const inputs = names(config.input);
  const required = new Set(names(config.required));
  const [values, setValues] = useState<Record<string, string>>({});
  const [reason, setReason] = useState('');
  const decide = useDecide();
  const approve = (e: FormEvent) => {
    e.preventDefault();
    decide.mutate({ name, dagRunId, step, decision: { approve: Object.fromEntries(inputs.map((k) => [k, values[k] ?? ''])) } });
  };
  return (
    <section className="panel approval" aria-labelledby={`approval-${step}`}>
      <h3 id={`approval-${step}`}>Approval needed: <code>{step}</code></h3>
      {typeof config.prompt === 'string' && config.prompt ? <p>{config.prompt}</p> : null}
      <form onSubmit={approve}>
        {inputs.map((k) => (
          <label key={k} className="field">
            <span>{k}{required.has(k) ? ' (required)' : ''}</span>
            <input value={values[k] ?? ''} required={required.has(k)} onChange={(e) => setValues((v) => ({ ...v, [k]: e.target.value }))} />
          </label>
        ))}
        <div className="actions">
          <button type="submit" className="primary" disabled={decide.isPending}>Approve</button>
        </div>
      </form>
      <form onSubmit={(e) => { e.preventDefault(); decide.mutate({ name, dagRunId, step, decision: { reject: reason } }); }}>
        <label className="field"><span>Reason (optional)</span><input value={reason} onChange={(e) => setReason(e.target.value)} /></label>
        <div className="actions">
          <button type="submit" className="danger" disabled={decide.isPending}>Reject</button>
        </div>
      </form>
      {decide.isError ? <ErrorBox error={decide.error} /> : null}
    </section>
  );
}
