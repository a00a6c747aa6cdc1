/**
 * API keys (`/admin/api-keys`, admin; SPEC 4.6): name, description, role (changed in place, then Save), key prefix,
 * creation and last use; New API key (name, description, role: the API has no expiry) shows the full key
 * once, with a Copy button; Revoke deletes the key (it stops working at once).
 */
import { useState, type FormEvent } from 'react';
import type { ApiKey, Role } from '../api/types';
import { Dialog } from '../components/dialog';
import { ErrorBox, Loading } from '../components/query-state';
import { formatTime } from '../lib/format';
import { useTitle } from '../lib/hooks';
import { useApiKeys, useCreateApiKey, useDeleteApiKey, useUpdateApiKey } from './api';
import { AdminError, AdminOnly, RoleEditor, RoleSelect } from './common';
import { SecretOnce } from './secret';

export function ApiKeysPage() {
  useTitle('API keys');
  return <AdminOnly title="API keys"><ApiKeys /></AdminOnly>;
}

function ApiKeys() {
  const keys = useApiKeys();
  const update = useUpdateApiKey();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey>();
  return (
    <>
      <header className="page-header">
        <h1>API keys</h1>
        <div className="actions"><button type="button" className="primary" onClick={() => setCreating(true)}>New API key</button></div>
      </header>
      <p className="muted">A key acts with its own role: send it as <code>Authorization: Bearer svc_…</code>.</p>
      {update.isError ? <ErrorBox error={update.error} /> : null}
      {keys.isPending ? <Loading what="API keys" /> : null}
      {keys.isError ? <AdminError error={keys.error} what="API keys" /> : null}
      {keys.data && keys.data.length === 0 ? <p className="muted">No API keys.</p> : null}
      {keys.data && keys.data.length > 0 ? (
        <table className="table" aria-label="API keys">
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {keys.data.map((k) => (
              <tr key={k.id} data-key={k.name}>
                <th scope="row">{k.name}{k.description ? <div className="muted small">{k.description}</div> : null}</th>
                <td>
                  <RoleEditor key={k.role} label={`key ${k.name}`} role={k.role} busy={update.isPending}
                    save={(role, done) => update.mutate({ keyId: k.id, role }, { onSettled: done })} />
                </td>
                <td><code>{k.keyPrefix}…</code></td>
                <td className="nowrap">{formatTime(k.createdAt)}</td>
                <td className="nowrap">{k.lastUsedAt ? formatTime(k.lastUsedAt) : <span className="muted">never</span>}</td>
                <td><button type="button" className="danger" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>Revoke</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Dialog open={creating} title="New API key" onClose={() => setCreating(false)}>
        <CreateKey onDone={() => setCreating(false)} />
      </Dialog>
      <Dialog open={revoking !== undefined} title={`Revoke ${revoking?.name ?? ''}?`} onClose={() => setRevoking(undefined)}>
        {revoking ? <RevokeForm apiKey={revoking} onDone={() => setRevoking(undefined)} /> : null}
      </Dialog>
    </>
  );
}

/** The form, then (once created) the key, shown this once; closing forgets it (the mutation unmounts). */
function CreateKey({ onDone }: { onDone: () => void }) {
  const create = useCreateApiKey();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  if (create.data) {
    return <SecretOnce label="API key" secret={create.data.key} onDone={() => { create.reset(); onDone(); }} />;
  }
  const problem = name.trim() === '' ? 'A name is required.' : name.trim().length > 100 ? 'At most 100 characters.' : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (problem || description.length > 500) return;
    create.mutate({ name: name.trim(), role, ...(description.trim() ? { description: description.trim() } : {}) });
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor="key-name">Name</label>
        <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoComplete="off" required />
      </div>
      <div className="field">
        <label htmlFor="key-description">Description <span className="muted small">(optional)</span></label>
        <textarea id="key-description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} rows={2} />
      </div>
      <div className="field">
        <label htmlFor="key-role">Role</label>
        <RoleSelect id="key-role" value={role} onChange={setRole} />
      </div>
      <p className="muted small">Keys do not expire: revoke a key when it is no longer needed.</p>
      {create.isError ? <ErrorBox error={create.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onDone}>Cancel</button>
        <button type="submit" className="primary" disabled={problem !== undefined || create.isPending}>{create.isPending ? 'Creating…' : 'Create'}</button>
      </div>
    </form>
  );
}

function RevokeForm({ apiKey, onDone }: { apiKey: ApiKey; onDone: () => void }) {
  const del = useDeleteApiKey();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    del.mutate(apiKey.id, { onSuccess: onDone });
  };
  return (
    <form className="form" onSubmit={submit}>
      <p>The key <strong>{apiKey.name}</strong> (<code>{apiKey.keyPrefix}…</code>) is deleted and stops working at once.</p>
      {del.isError ? <ErrorBox error={del.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onDone}>Cancel</button>
        <button type="submit" className="danger" disabled={del.isPending}>{del.isPending ? 'Revoking…' : 'Revoke'}</button>
      </div>
    </form>
  );
}
