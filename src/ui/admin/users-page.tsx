/**
 * Users (`/admin/users`, admin; SPEC 4.2): each user's role (changed in place, then Save), state and sign-in kind;
 * New user, Reset password, Disable/Enable, Delete. The server keeps the rules (an admin cannot delete
 * or disable their own account, the last enabled admin stays one): when it refuses, its message is shown.
 */
import { useState, type FormEvent } from 'react';
import type { User } from '../api/types';
import { useSession } from '../auth/session';
import { Dialog } from '../components/dialog';
import { ErrorBox, Loading } from '../components/query-state';
import { formatTime } from '../lib/format';
import { useTitle } from '../lib/hooks';
import { useCreateUser, useDeleteUser, useResetPassword, useSetDisabled, useSetRole, useUsers } from './api';
import { AdminError, AdminOnly, RoleEditor, RoleSelect } from './common';

const MIN_PASSWORD = 8;

type Open = { kind: 'create' } | { kind: 'password' | 'delete'; user: User };

export function UsersPage() {
  useTitle('Users');
  return <AdminOnly title="Users"><Users /></AdminOnly>;
}

function Users() {
  const users = useUsers();
  const [open, setOpen] = useState<Open>();
  const me = useSession().user;
  const setRole = useSetRole();
  const setDisabled = useSetDisabled();
  const close = () => setOpen(undefined);
  const failed = setRole.error ?? setDisabled.error;
  return (
    <>
      <header className="page-header">
        <h1>Users</h1>
        <div className="actions"><button type="button" className="primary" onClick={() => setOpen({ kind: 'create' })}>New user</button></div>
      </header>
      {failed ? <ErrorBox error={failed} /> : null}
      {users.isPending ? <Loading what="users" /> : null}
      {users.isError ? <AdminError error={users.error} what="Users" /> : null}
      {users.data ? (
        <table className="table" aria-label="Users">
          <thead>
            <tr><th scope="col">User</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Sign-in</th><th scope="col">Created</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {users.data.map((u) => (
              <tr key={u.id} data-user={u.username}>
                <th scope="row">{u.username}{u.id === me?.id ? <span className="muted small"> (you)</span> : null}{u.email ? <div className="muted small">{u.email}</div> : null}</th>
                <td>
                  <RoleEditor key={u.role} label={u.username} role={u.role} busy={setRole.isPending}
                    save={(role, done) => { setDisabled.reset(); setRole.mutate({ userId: u.id, role }, { onSettled: done }); }} />
                </td>
                <td>{u.isDisabled ? <span className="badge tone-fail">disabled</span> : <span className="badge tone-ok">enabled</span>}</td>
                <td className="small">{u.authProvider}{u.hasPassword ? '' : ', no password'}</td>
                <td className="nowrap">{formatTime(u.createdAt)}</td>
                <td>
                  <div className="actions">
                    <button type="button" onClick={() => setOpen({ kind: 'password', user: u })} aria-label={`Reset the password of ${u.username}`}>Reset password</button>
                    <button type="button" disabled={setDisabled.isPending} aria-label={`${u.isDisabled ? 'Enable' : 'Disable'} ${u.username}`}
                      onClick={() => { setRole.reset(); setDisabled.mutate({ userId: u.id, isDisabled: !u.isDisabled }); }}>{u.isDisabled ? 'Enable' : 'Disable'}</button>
                    <button type="button" className="danger" onClick={() => setOpen({ kind: 'delete', user: u })} aria-label={`Delete ${u.username}`}>Delete</button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Dialog open={open?.kind === 'create'} title="New user" onClose={close}><CreateForm onDone={close} /></Dialog>
      <Dialog open={open?.kind === 'password'} title={`Reset the password of ${open?.kind === 'password' ? open.user.username : ''}`} onClose={close}>
        {open?.kind === 'password' ? <PasswordForm user={open.user} onDone={close} /> : null}
      </Dialog>
      <Dialog open={open?.kind === 'delete'} title={`Delete ${open?.kind === 'delete' ? open.user.username : ''}?`} onClose={close}>
        {open?.kind === 'delete' ? <DeleteForm user={open.user} onDone={close} /> : null}
      </Dialog>
    </>
  );
}

function CreateForm({ onDone }: { onDone: () => void }) {
  const create = useCreateUser();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<User['role']>('viewer');
  const short = password.length < MIN_PASSWORD;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim() || short) return;
    create.mutate({ username: username.trim(), password, role }, { onSuccess: onDone });
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor="new-username">Username</label>
        <input id="new-username" value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" spellCheck={false} required />
      </div>
      <div className="field">
        <label htmlFor="new-password">Password</label>
        <input id="new-password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" aria-describedby="new-password-help" required />
        <small id="new-password-help" className="muted">At least {MIN_PASSWORD} characters.</small>
      </div>
      <div className="field">
        <label htmlFor="new-role">Role</label>
        <RoleSelect id="new-role" value={role} onChange={setRole} />
      </div>
      {create.isError ? <ErrorBox error={create.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onDone}>Cancel</button>
        <button type="submit" className="primary" disabled={!username.trim() || short || create.isPending}>{create.isPending ? 'Creating…' : 'Create'}</button>
      </div>
    </form>
  );
}

function PasswordForm({ user, onDone }: { user: User; onDone: () => void }) {
  const reset = useResetPassword();
  const [password, setPassword] = useState('');
  const short = password.length < MIN_PASSWORD;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!short) reset.mutate({ userId: user.id, newPassword: password }, { onSuccess: onDone });
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      <p>{user.username} signs in with the new password; the sessions they have end.</p>
      <div className="field">
        <label htmlFor="reset-password">New password</label>
        <input id="reset-password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" aria-describedby="reset-password-help" />
        <small id="reset-password-help" className="muted">At least {MIN_PASSWORD} characters.</small>
      </div>
      {reset.isError ? <ErrorBox error={reset.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onDone}>Cancel</button>
        <button type="submit" className="primary" disabled={short || reset.isPending}>{reset.isPending ? 'Setting…' : 'Set password'}</button>
      </div>
    </form>
  );
}

function DeleteForm({ user, onDone }: { user: User; onDone: () => void }) {
  const del = useDeleteUser();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    del.mutate(user.id, { onSuccess: onDone });
  };
  return (
    <form className="form" onSubmit={submit}>
      <p>The account <strong>{user.username}</strong> is deleted; its sessions end at once.</p>
      {del.isError ? <ErrorBox error={del.error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onDone}>Cancel</button>
        <button type="submit" className="danger" disabled={del.isPending}>{del.isPending ? 'Deleting…' : 'Delete'}</button>
      </div>
    </form>
  );
}
