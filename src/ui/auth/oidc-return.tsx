/**
 * `/login`: where the server's OIDC callback sends the browser, with the outcome in the fragment (never
 * sent to a server): `#token=<JWT>&expiresAt=...` or `#error=...&error_description=...`. A token is
 * checked and its user read (GET /auth/me), kept as a builtin login's is, and the fragment dropped from
 * the address and the history; then the page the user was on when they left opens. Without a fragment,
 * /login shows the login page, or the dashboard to a session that has a token. A token is taken only
 * when this tab started the OIDC login (session.ts oidcPending): a link carrying someone else's token
 * never replaces the session.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { api, must } from '../api/client';
import { LoginPage } from './login-page';
import { oidcPending, returnTo, session, useSession } from './session';

type Outcome = { token: string } | { error: string } | undefined;

/** A token this tab did not ask for (a link from elsewhere) is dropped, never logged in with. */
export const FOREIGN_TOKEN = 'This login link was not started from this browser tab, so it was ignored: log in here.';

function fragment(hash: string): Outcome {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const token = p.get('token');
  if (token) return oidcPending.started() ? { token } : { error: FOREIGN_TOKEN };
  const error = p.get('error');
  if (error) return { error: p.get('error_description') || error };
  return undefined;
}

export function LoginRoute() {
  const [outcome] = useState(() => fragment(window.location.hash));
  const [error, setError] = useState<string | undefined>(outcome && 'error' in outcome ? outcome.error : undefined);
  const { token, needLogin } = useSession();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const pending = outcome !== undefined && 'token' in outcome && error === undefined;

  useEffect(() => {
    // The token must not stay in the address bar nor in the history.
    if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname);
    oidcPending.clear(); // one login started, one token taken

    if (!outcome || !('token' in outcome)) return;
    const ac = new AbortController();
    must(api.GET('/auth/me', { headers: { authorization: `Bearer ${outcome.token}` }, signal: ac.signal })).then((me) => {
      session.loggedIn(outcome.token, me.user);
      void qc.resetQueries();
      void navigate(returnTo.take(), { replace: true });
    }, (e: unknown) => {
      if (!ac.signal.aborted) setError(`the server did not accept the token it issued (${e instanceof Error ? e.message : String(e)})`);
    });
    return () => ac.abort();
  }, [outcome, navigate, qc]);

  if (pending) return <main className="login" id="main"><p role="status">Logging in…</p></main>;
  if (error === undefined && token && !needLogin) return <Navigate to="/" replace />;
  return <LoginPage error={error} onLoggedIn={() => void navigate(returnTo.take(), { replace: true })} />;
}
