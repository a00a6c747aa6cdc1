/**
 * The login page (POST /auth/login, and OIDC when the server offers it: GET /auth/oidc): shown in place of
 * every page while the server answers 401, and at /login, where the server's OIDC callback sends the
 * browser back (auth/oidc-return.tsx). The token it gets is kept by the session and sent with every call.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { useLogin, useOidcInfo } from '../api/queries';
import { useTitle } from '../lib/hooks';
import { oidcPending, returnTo, session } from './session';

function loginError(e: unknown): string {
  if (!(e instanceof ApiError)) return String(e);
  if (e.status === 401) return 'Wrong username or password.';
  if (e.status === 429) return 'Too many failed attempts: wait a little, then try again.';
  if (e.status === 404) return 'This server has no builtin login (authentication mode is not builtin): use an API token.';
  return e.message;
}

/** `error`: why the last login failed elsewhere (the OIDC provider or the server's callback). */
export function LoginPage({ error, onLoggedIn }: { error?: string | undefined; onLoggedIn?: () => void }) {
  useTitle('Log in');
  const qc = useQueryClient();
  const login = useLogin();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ username, password }, {
      onSuccess: (r) => {
        session.loggedIn(r.token, r.user);
        void qc.resetQueries();
        onLoggedIn?.();
      },
    });
  };
  return (
    <main className="login" id="main">
      <form className="form login-form" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">svc</h1>
        <p className="muted">Log in to continue.</p>
        {error ? <div className="error-box" role="alert">OIDC login failed: {error}</div> : null}
        <label className="field">
          <span>Username</span>
          <input name="username" autoComplete="username" required autoFocus value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label className="field">
          <span>Password</span>
          <input name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        {login.isError ? <div className="error-box" role="alert">{loginError(login.error)}</div> : null}
        <button type="submit" className="primary" disabled={login.isPending}>{login.isPending ? 'Logging in…' : 'Log in'}</button>
        <OidcButton />
      </form>
    </main>
  );
}

/**
 * A link, not a button: it leaves the app for the provider (through the server's redirect). The page
 * asked for is remembered, so the browser comes back to it.
 */
function OidcButton() {
  const info = useOidcInfo();
  if (!info.data?.enabled) return null;
  const remember = () => {
    const { pathname, search, hash } = window.location;
    returnTo.save(pathname === '/login' ? '/' : `${pathname}${search}${hash}`);
    oidcPending.start();
  };
  return (
    <>
      <p className="login-or muted small">or</p>
      <a className="button login-oidc" href={info.data.loginUrl ?? '/api/v2/auth/oidc/login'} onClick={remember}>{info.data.buttonLabel || 'Log in with OIDC'}</a>
    </>
  );
}
