/**
 * What keeps a web page from driving this server (a local server with auth off most of all): a page
 * on another name rebound to this address (DNS rebinding) is refused by Host; a page of another site
 * cannot change state, because it would need a request a browser only sends after a CORS preflight
 * (which this server never grants) and because the browser's Origin and Sec-Fetch-Site say where it
 * comes from. POST /webhooks/{fileName} stays callable by other services (its own bearer token guards it).
 */
import type { Request, RequestHandler } from 'express';
import { BadRequestError, DomainError } from '../../core/errors.js';
import { hasBody, requireJsonBody, show } from '../input.js';
import { hostAllowed, hostName } from './hosts.js';

const API = /^\/api\/v2(\/|$)/i;
const WEBHOOK = /^\/api\/v2\/webhooks\/[^/]+\/?$/i;
/** The one GET of the API that changes state (SPEC 4.5). */
const DEQUEUE = /^\/api\/v2\/dag-runs\/[^/]+\/[^/]+\/dequeue\/?$/i;

/** The header a script sends to show it is not a form or a link (any value). */
export const SCRIPT_HEADER = 'X-Requested-With';

export function hostGuard(allowedHosts: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    const host = req.get('host');
    if (hostAllowed(host, allowedHosts)) return next();
    throw new DomainError('forbidden', `Host ${show(hostName(host) ?? host ?? '')} is not a name this server answers: `
      + 'if it is yours, add it to SVC_ALLOWED_HOSTS (server.allowedHosts)');
  };
}

function changesState(req: Request): boolean {
  const path = `${req.baseUrl}${req.path}`; // the same at the app's root and under the API's router
  if (!API.test(path) || WEBHOOK.test(path)) return false;
  if (req.method === 'GET' || req.method === 'HEAD') return DEQUEUE.test(path);
  return req.method !== 'OPTIONS';
}

function originMatches(origin: string, host: string | undefined): boolean {
  try {
    const u = new URL(origin);
    const dflt = u.protocol === 'https:' ? ':443' : ':80';
    const h = (host ?? '').toLowerCase();
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host === (h.endsWith(dflt) ? h.slice(0, -dflt.length) : h);
  } catch {
    return false;
  }
}

/** Why the request comes from another site, or undefined when the browser says it does not. */
function crossSite(req: Request, origins: readonly string[]): string | undefined {
  const origin = req.get('origin');
  // The UI's own address behind a proxy (the OIDC clientUrl) is another origin, and ours.
  if (origin !== undefined && origins.includes(origin)) return undefined;
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site is ${show(site)}`;
  if (origin !== undefined && !originMatches(origin, req.get('host'))) return `Origin ${show(origin)} is not this server`;
  return undefined;
}

const mediaType = (req: Request): string | undefined => req.get('content-type')?.split(';')[0]?.trim().toLowerCase();

/** A request no form, link or image can make: JSON, the script header, or a bearer token set by a script. */
function fromScript(req: Request): boolean {
  return mediaType(req) === 'application/json' || req.get(SCRIPT_HEADER) !== undefined || /^bearer\s/i.test(req.get('authorization') ?? '');
}

/**
 * Before anything reads the request: a state change the browser says comes from another site is
 * refused. `origins`: origins that are this server's too (the UI's address behind a proxy).
 */
export function crossSiteGuard(origins: readonly string[] = []): RequestHandler {
  return (req, _res, next) => {
    if (!changesState(req)) return next();
    const why = crossSite(req, origins);
    if (why) throw new DomainError('forbidden', `${req.method} ${req.path} changes state and is refused from another site (${why})`);
    next();
  };
}

/**
 * After authentication (a request without credentials hears 401 first), before any router or forwarding:
 * a state change must be a request no form, link or image can make. PUT, PATCH and DELETE always need
 * a preflight: only POST and the dequeue GET can come from a form or a link.
 */
export const scriptRequestGuard: RequestHandler = (req, res, next) => {
  if (!changesState(req)) return next();
  if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'HEAD') return next();
  if (fromScript(req)) return next();
  const advice = `send the body as JSON with Content-Type: application/json, or send the header ${SCRIPT_HEADER}`;
  // A body that is not JSON: express.json has not read it yet, so this refuses it with 415.
  if (hasBody(req)) return requireJsonBody(req, res, next);
  throw new BadRequestError(`${req.method} ${req.baseUrl}${req.path} changes state: ${advice} (a web form or link cannot, so another site cannot make this request)`);
};

/**
 * The UI's pages may not be framed (clickjacking) and run only the server's own scripts. Inline styles
 * stay allowed: React's style props, the terminal's and the graph's measured sizes are inline styles, and
 * a style cannot run code.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Frame-Options': 'DENY', 'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin', 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Resource-Policy': 'same-origin',
  });
  next();
};
