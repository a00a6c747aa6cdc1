/**
 * A new DAG (`/new-dag`, from the DAG list): its file name, checked as it is typed against the rules and
 * the DAGs that exist, then its YAML in the spec editor, checked as that name. Create sends POST /dags; the
 * server checks both again and its problems are shown with the text kept. Manager and up.
 */
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../api/client';
import { useCreateDag, useDags } from '../api/queries';
import { useCan } from '../auth/session';
import { LazySpecEditor } from '../components/lazy-spec-editor';
import { LeaveGuard } from '../components/leave-guard';
import { ErrorBox } from '../components/query-state';
import { useTitle } from '../lib/hooks';
import { fileNameProblem, MAX_FILE_NAME_LENGTH } from '../lib/names';

export const NEW_DAG_SPEC = `description: What this DAG does
steps:
  - name: hello
    command: echo "hello"
`;

/** The server's problems with a refused spec (400 with details.errors), else none. */
function refusedProblems(e: unknown): string[] {
  const list = e instanceof ApiError ? e.details?.errors : undefined;
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
}

export function NewDagPage() {
  useTitle('New DAG');
  const canCreate = useCan('manager');
  const dags = useDags();
  const navigate = useNavigate();
  const create = useCreateDag();
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [spec, setSpec] = useState(NEW_DAG_SPEC);
  const [done, setDone] = useState(false);
  const taken = useMemo(() => new Set((dags.data?.dags ?? []).map((d) => d.fileName)), [dags.data]);
  const problem = fileNameProblem(name, taken);
  const refused = create.isError ? refusedProblems(create.error) : [];
  const form = useRef<HTMLFormElement>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (problem || create.isPending) return;
    create.mutate({ name, spec }, {
      onSuccess: (r) => {
        setDone(true);
        void navigate(`/dags/${encodeURIComponent(r.name)}`);
      },
    });
  };
  if (!canCreate) return <><h1>New DAG</h1><p>Your role cannot create DAGs. <Link to="/dags">Back to the DAGs.</Link></p></>;
  const showProblem = problem !== undefined && (touched || name !== '');
  return (
    <form ref={form} className="spec-form" onSubmit={submit} aria-label="New DAG" noValidate>
      <header className="page-header">
        <div>
          <p className="crumbs"><Link to="/dags">DAGs</Link> /</p>
          <h1>New DAG</h1>
        </div>
      </header>
      <div className="field name-field">
        <label htmlFor="new-dag-name">Name</label>
        <input
          id="new-dag-name"
          name="name"
          value={name}
          onChange={(e) => { setName(e.target.value); create.reset(); }}
          onBlur={() => setTouched(true)}
          maxLength={MAX_FILE_NAME_LENGTH + 20}
          aria-invalid={showProblem}
          aria-describedby="name-help"
          autoComplete="off"
          spellCheck={false}
          required
        />
        <small id="name-help" className={showProblem ? 'error-text' : 'muted'} role={showProblem ? 'alert' : undefined}>
          {showProblem ? problem : `The DAG's file name: 1-${MAX_FILE_NAME_LENGTH} letters, digits, "_" or "-".`}
        </small>
      </div>
      {refused.length > 0 ? (
        <div className="error-box" role="alert">
          <strong>Not created: the server found {refused.length === 1 ? 'a problem' : `${refused.length} problems`} in the spec.</strong>
          <ul>{refused.map((m) => <li key={m}>{m}</li>)}</ul>
        </div>
      ) : create.isError ? <ErrorBox error={create.error} /> : null}
      <LazySpecEditor initial={NEW_DAG_SPEC} readOnly={false} name={problem ? 'new-dag' : name} label="Spec of the new DAG (YAML)" onChange={(t) => { setSpec(t); if (create.isError) create.reset(); }} onSave={() => form.current?.requestSubmit()} />
      <div className="actions form-actions">
        <Link to="/dags">Cancel</Link>
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating…' : 'Create'}</button>
      </div>
      <LeaveGuard when={!done && (name !== '' || spec !== NEW_DAG_SPEC)} what="The new DAG" />
    </form>
  );
}
