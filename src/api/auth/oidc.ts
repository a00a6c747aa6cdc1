/**
 * OIDC login (SPEC 5.4): GET /auth/oidc (is it on, button label), GET /auth/oidc/login (redirect to the
 * provider) and, at the root, GET /oidc-callback. The browser's login is bound to it by an HttpOnly
 * cookie holding the state. Success redirects to {clientUrl}/login#token=<JWT>&expiresAt=...: the token
 * travels in the fragment, which browsers never send to a server nor put in a Referer; failure redirects
 * to {clientUrl}/login#error=access_denied&error_description=....
 */
import { Router, type Request } from 'express';
import { NotFoundError } from '../../core/errors.js';
import type { OidcLogin } from '../../auth/oidc/login.js';
import { sourceOf } from './context.js';

export const STATE_COOKIE = 'svc_oidc_state';

export interface OidcDeps {
  oidc?: OidcLogin;
  clientUrl?: string;
  buttonLabel?: string;
}

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

const cookieFlags = (clientUrl: string) => `Path=/oidc-callback; HttpOnly; SameSite=Lax${clientUrl.startsWith('https:') ? '; Secure' : ''}`;

export function oidcRouter(d: OidcDeps): Router {
  const r = Router();
  r.get('/auth/oidc', (_req, res) => {
    res.json(d.oidc ? { enabled: true, buttonLabel: d.buttonLabel, loginUrl: '/api/v2/auth/oidc/login' } : { enabled: false });
  });
  r.get('/auth/oidc/login', async (_req, res) => {
    if (!d.oidc || !d.clientUrl) throw new NotFoundError('OIDC login is not configured (SVC_AUTH_OIDC_CLIENT_ID, _CLIENT_SECRET, _CLIENT_URL, _ISSUER)');
    const { url, state } = await d.oidc.begin();
    res.set('Set-Cookie', `${STATE_COOKIE}=${state}; Max-Age=600; ${cookieFlags(d.clientUrl)}`).set('Cache-Control', 'no-store').redirect(302, url);
  });
  return r;
}

/** GET /oidc-callback, mounted at the root of the server (the redirect URI registered with the provider). */
export function oidcCallbackRouter(d: OidcDeps): Router {
  const r = Router();
  r.get('/oidc-callback', async (req, res) => {
    if (!d.oidc || !d.clientUrl) throw new NotFoundError('OIDC login is not configured');
    const query = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
    res.set('Set-Cookie', `${STATE_COOKIE}=; Max-Age=0; ${cookieFlags(d.clientUrl)}`).set('Cache-Control', 'no-store').set('Referrer-Policy', 'no-referrer');
    try {
      const s = await d.oidc.complete(query, cookie(req, STATE_COOKIE), sourceOf(req));
      res.redirect(302, `${d.clientUrl}/login#${new URLSearchParams({ token: s.token, expiresAt: s.expiresAt })}`);
    } catch (e) {
      res.redirect(302, `${d.clientUrl}/login#${new URLSearchParams({ error: 'access_denied', error_description: (e as Error).message })}`);
    }
  });
  return r;
}

