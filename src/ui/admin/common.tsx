/** What the admin pages share: the admin-only gate, a role picker, and builtin-mode detection. */
import { useState, type ReactNode } from 'react';
import { ApiError } from '../api/client';
import type { Role } from '../api/types';
import { useCan } from '../auth/session';
import { ErrorBox } from '../components/query-state';
import { ROLES } from './api';

/** The page for an admin; anyone else reads why it is not shown (the server refuses them anyway). */
export function AdminOnly({ title, children }: { title: string; children: ReactNode }) {
  const admin = useCan('admin');
  if (admin) return <>{children}</>;
  return (
    <>
      <header className="page-header"><h1>{title}</h1></header>
      <p className="warning-box" role="alert">This page needs the admin role.</p>
    </>
  );
}

/** A failed admin list: 404 from /users or /api-keys means builtin authentication is off. */
export function AdminError({ error, what }: { error: unknown; what: string }) {
  if (error instanceof ApiError && error.status === 404) {
    return (
      <p className="warning-box" role="alert">
        {what} exist only with builtin authentication (<code>SVC_AUTH_MODE=builtin</code>). The server says: {error.message}
      </p>
    );
  }
  return <ErrorBox error={error} what={what.toLowerCase()} />;
}

export function RoleSelect({ id, value, label, disabled, onChange }: { id?: string; value: Role; label?: string; disabled?: boolean; onChange: (role: Role) => void }) {
  return (
    <select id={id} aria-label={label} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value as Role)}>
      {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
    </select>
  );
}

/**
 * A stored role and a menu to change it, saved by its own button: moving through a closed menu with the
 * arrow keys changes its value, which must not send a request per step. `save` calls `done` once the
 * server has answered, so a refused change goes back to the stored role.
 */
export function RoleEditor({ label, role, busy, save }: { label: string; role: Role; busy: boolean; save: (role: Role, done: () => void) => void }) {
  const [draft, setDraft] = useState(role);
  const changed = draft !== role;
  return (
    <span className="role-editor">
      <RoleSelect label={`Role of ${label}`} value={draft} disabled={busy} onChange={setDraft} />
      {changed ? (
        <>
          <button type="button" className="primary" disabled={busy} aria-label={`Save the role of ${label}`} onClick={() => save(draft, () => setDraft(role))}>Save</button>
          <button type="button" className="ghost" disabled={busy} aria-label={`Keep the role of ${label}`} onClick={() => setDraft(role)}>Cancel</button>
        </>
      ) : null}
    </span>
  );
}
