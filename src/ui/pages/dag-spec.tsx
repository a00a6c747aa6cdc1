/**
 * The Spec tab of a DAG page: its YAML text in the editor, checked as it is typed, saved with
 * PUT /dags/{fileName}/spec. The server saves a valid text only; its problems are shown and the text under
 * edit is kept as it is. Leaving with unsaved changes asks first. Read-only below the manager role.
 */
import { useRef, useState, type FormEvent } from 'react';
import { useDagSpec, useSaveSpec } from '../api/queries';
import { useCan } from '../auth/session';
import { LazySpecEditor } from '../components/lazy-spec-editor';
import { LeaveGuard } from '../components/leave-guard';
import { ErrorBox, Loading } from '../components/query-state';
import { draftOf, forgetDraft, keepDraft } from '../lib/drafts';

export function DagSpec({ fileName }: { fileName: string }) {
  const spec = useDagSpec(fileName);
  const canWrite = useCan('manager');
  if (spec.isPending) return <Loading what="the spec" />;
  if (spec.isError) return <ErrorBox error={spec.error} what="the spec" />;
  return <SpecForm fileName={fileName} text={spec.data.spec} canWrite={canWrite} />;
}

interface Refused {
  text: string;
  errors: string[];
}

function SpecForm({ fileName, text, canWrite }: { fileName: string; text: string; canWrite: boolean }) {
  const key = `spec:${fileName}`;
  // Text left unsaved earlier in this page's life comes back (a viewer has none).
  const [initial] = useState(() => (canWrite ? draftOf(key) : undefined) ?? text);
  const [draft, setDraft] = useState(initial);
  const [saved, setSaved] = useState(text);
  const [refused, setRefused] = useState<Refused>();
  const save = useSaveSpec(fileName);
  const dirty = draft !== saved;
  const change = (t: string) => {
    setDraft(t);
    keepDraft(key, t, saved);
  };
  const form = useRef<HTMLFormElement>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!dirty || save.isPending) return;
    const sent = draft;
    save.mutate(sent, {
      onSuccess: (r) => {
        if (r.errors.length > 0) setRefused({ text: sent, errors: r.errors });
        else {
          setRefused(undefined);
          setSaved(sent);
          forgetDraft(key);
        }
      },
    });
  };
  return (
    <form ref={form} className="spec-form" onSubmit={submit} aria-label="DAG spec">
      <div className="spec-toolbar">
        <span className="muted small" role="status" data-dirty={dirty}>
          {!canWrite ? 'Read-only' : dirty ? (initial !== text && draft === initial ? 'Unsaved changes (kept from before)' : 'Unsaved changes') : save.isSuccess && !refused ? 'Saved' : 'No changes'}
        </span>
        {canWrite ? <button type="submit" className="primary" disabled={!dirty || save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button> : null}
      </div>
      {refused ? (
        <div className="error-box" role="alert" data-saved="false">
          <strong>Not saved: the server found {refused.errors.length === 1 ? 'a problem' : `${refused.errors.length} problems`}{refused.text === draft ? '' : ' in the text you sent'}.</strong>
          <ul>{refused.errors.map((m) => <li key={m}>{m}</li>)}</ul>
        </div>
      ) : null}
      {save.isError ? <ErrorBox error={save.error} /> : null}
      <LazySpecEditor initial={initial} readOnly={!canWrite} name={fileName} label={`Spec of ${fileName} (YAML)`} onChange={change} onSave={() => form.current?.requestSubmit()} />
      <LeaveGuard when={canWrite && dirty} what="The spec" onLeave={() => forgetDraft(key)} />
    </form>
  );
}
