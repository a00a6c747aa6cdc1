/**
 * The browser's session: the bearer token from POST /auth/login (kept in localStorage so a reload keeps
 * it) and whether the server has asked for credentials (an API answer 401). Components read it through
 * useSession(); the API client reads the token and reports a 401 here.
 */
import { useSyncExternalStore } from 'react';
import type { Role } from '../api/types';

export interface SessionUser {
  id: string;
  username: string;
  role: Role;
}

export interface SessionState {
  token: string | undefined;
  user: SessionUser | undefined;
  /** The server answered 401: the login page is shown until a login succeeds. */
  needLogin: boolean;
}

const TOKEN_KEY = 'svc.token';
const USER_KEY = 'svc.user';

function read(key: string): string | undefined {
  try { return localStorage.getItem(key) ?? undefined; } catch { return undefined; }
}

function write(key: string, value: string | undefined): void {
  try {
    if (value === undefined) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch { /* storage off: the session lasts as long as the page */ }
}

function readUser(): SessionUser | undefined {
  try { return JSON.parse(read(USER_KEY) ?? 'null') as SessionUser | null ?? undefined; } catch { return undefined; }
}

class Session {
  private state: SessionState = { token: read(TOKEN_KEY), user: readUser(), needLogin: false };
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  readonly snapshot = (): SessionState => this.state;

  token(): string | undefined {
    return this.state.token;
  }

  loggedIn(token: string, user: SessionUser): void {
    write(TOKEN_KEY, token);
    write(USER_KEY, JSON.stringify(user));
    this.set({ token, user, needLogin: false });
  }

  /** The session's own user changed (an admin changed their own role): the token stays. */
  userChanged(user: SessionUser): void {
    if (!this.state.token || this.state.user?.id !== user.id) return;
    write(USER_KEY, JSON.stringify(user));
    this.set({ ...this.state, user });
  }

  /** Forget the token; `needLogin` shows the login page at once (a 401), else on the next 401. */
  loggedOut(needLogin: boolean): void {
    write(TOKEN_KEY, undefined);
    write(USER_KEY, undefined);
    this.set({ token: undefined, user: undefined, needLogin });
  }

  private set(next: SessionState): void {
    this.state = next;
    for (const fn of this.listeners) fn();
  }
}

export const session = new Session();

const RETURN_KEY = 'svc.returnTo';

/**
 * The page to come back to after a login that leaves the app (OIDC: the provider, then the server's
 * redirect to /login#token=...). sessionStorage: this tab only; only a path of this origin is kept.
 */
export const returnTo = {
  save(path: string): void {
    try { sessionStorage.setItem(RETURN_KEY, path); } catch { /* storage off: back to the dashboard */ }
  },
  take(): string {
    let path: string | null = null;
    try {
      path = sessionStorage.getItem(RETURN_KEY);
      sessionStorage.removeItem(RETURN_KEY);
    } catch { /* storage off */ }
    return path?.startsWith('/') && !path.startsWith('//') && !path.startsWith('/login') ? path : '/';
  },
};

const OIDC_PENDING_KEY = 'svc.oidcPending';

/**
 * Whether this tab started the OIDC login that now comes back with a token. A `/login#token=...` link
 * made by someone else (their own token, to have the victim work in the attacker's account) finds no
 * mark in this tab and is refused: only a login the user started here replaces the session.
 */
export const oidcPending = {
  start(): void {
    try { sessionStorage.setItem(OIDC_PENDING_KEY, '1'); } catch { /* storage off: the returning token is refused */ }
  },
  started(): boolean {
    try { return sessionStorage.getItem(OIDC_PENDING_KEY) === '1'; } catch { return false; }
  },
  clear(): void {
    try { sessionStorage.removeItem(OIDC_PENDING_KEY); } catch { /* storage off */ }
  },
};

export function useSession(): SessionState {
  return useSyncExternalStore(session.subscribe, session.snapshot);
}

const RANK: Record<Role, number> = { viewer: 0, operator: 1, manager: 2, admin: 3 };

/**
 * Whether the session may do what needs `role` (SPEC 5.3: admin > manager > operator > viewer). With
 * auth off there is no user and everything is allowed; the server decides in the end either way, this
 * only keeps controls a user cannot use off the page.
 */
export function useCan(role: Role): boolean {
  const { user } = useSession();
  return user === undefined || RANK[user.role] >= RANK[role];
}
