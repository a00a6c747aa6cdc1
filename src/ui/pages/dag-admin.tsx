/**
 * Rename and Delete of a DAG page (manager and up), each confirmed in a dialog. Rename checks the new name
 * as it is typed (the rules of a new DAG's name) and goes to the DAG's new page; Delete goes to the DAG
 * list (the DAG's run history stays on the server).
 */
import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useDags, useDeleteDag, useRenameDag } from '../api/queries';
import { Dialog } from '../components/dialog';
import { ErrorBox } from '../components/query-state';
import { fileNameProblem } from '../lib/names';

export function DagAdmin({ fileName }: { fileName: string }) {
  const [open, setOpen] = useState<'rename' | 'delete'>();
  const close = () => setOpen(undefined);
  return (
    <>
      <button type="button" onClick={() => setOpen('rename')}>Rename</button>
      <button type="button" className="danger" onClick={() => setOpen('delete')}>Delete</button>
      <Dialog open={open === 'rename'} title={`Rename ${fileName}`} onClose={close}>
        <RenameForm fileName={fileName} onCancel={close} />
      </Dialog>
      <Dialog open={open === 'delete'} title={`Delete ${fileName}?`} onClose={close}>
        <DeleteForm fileName={fileName} onCancel={close} />
      </Dialog>
    </>
  );
}

function RenameForm({ fileName, onCancel }: { fileName: string; onCancel: () => void }) {
  const dags = useDags();
  const rename = useRenameDag();
  const navigate = useNavigate();
  const [name, setName] = useState(fileName);
  const taken = useMemo(() => new Set((dags.data?.dags ?? []).map((d) => d.fileName)), [dags.data]);
  const problem = name === fileName ? 'This is its name now.' : fileNameProblem(name, taken);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (problem) return;
    rename.mutate({ fileName, newFileName: name }, { onSuccess: () => void navigate(`/dags/${encodeURIComponent(name)}`, { replace: true }) });
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor="rename-dag">New name</label>
        <input id="rename-dag" name="newFileName" value={name} onChange={(e) => { setName(e.target.value); rename.reset(); }} aria-invalid={problem !== undefined} aria-describedby="rename-help" autoComplete="off" spellCheck={false} />
        <small id="rename-help" className={problem ? 'error-text' : 'muted'}>{problem ?? 'The DAG file gets this name; its runs keep theirs.'}</small>
      </div>
      {rename.isError ? <ErrorBox error={rename.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onCancel}>Cancel</button>
        <button type="submit" className="primary" disabled={problem !== undefined || rename.isPending}>{rename.isPending ? 'Renaming…' : 'Rename'}</button>
      </div>
    </form>
  );
}

function DeleteForm({ fileName, onCancel }: { fileName: string; onCancel: () => void }) {
  const del = useDeleteDag();
  const navigate = useNavigate();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    del.mutate(fileName, { onSuccess: () => void navigate('/dags', { replace: true }) });
  };
  return (
    <form className="form" onSubmit={submit}>
      <p>The DAG file <code>{fileName}</code> is deleted. Its past runs stay in the run history.</p>
      {del.isError ? <ErrorBox error={del.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onCancel}>Cancel</button>
        <button type="submit" className="danger" disabled={del.isPending}>{del.isPending ? 'Deleting…' : 'Delete'}</button>
      </div>
    </form>
  );
}
