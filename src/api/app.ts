/**
 * The express app of REST API v2 (SPEC 4): routers are factories over injected deps; handlers throw
 * domain errors; one error middleware maps them. Express 5 forwards rejected promises of async
 * handlers to the error middleware.
 */
import express, { type Express, type Router } from 'express';
import { crossSiteGuard, hostGuard, scriptRequestGuard, securityHeaders } from './browser/guard.js';
import { errorMiddleware, notFoundRoute } from './errors.js';
import { requireJsonBody } from './input.js';

export interface ApiLogger {
  info(msg: string, f?: Record<string, unknown>): void;
  warn(msg: string, f?: Record<string, unknown>): void;
  error(msg: string, f?: Record<string, unknown>): void;
}

export interface AppParts {
  log: ApiLogger;
  /** Routers mounted under /api/v2, in order. */
  routers: Router[];
  /** Authentication, mounted first under /api/v2 (a request without credentials hears 401 first). */
  authenticate?: express.RequestHandler[];
  /** Handlers mounted before the API routers, after authentication (e.g. remoteNode forwarding). */
  before?: express.RequestHandler[];
  /** Routers mounted at the root (UI assets later). */
  rootRouters?: Router[];
  /** Host names answered beside IP literals (config allowedHosts); default the localhost names. */
  allowedHosts?: readonly string[];
  /** Origins besides the request's own that are this server's (the OIDC clientUrl's). */
  ownOrigins?: readonly string[];
}

export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  // Before anything reads the request: a foreign Host or a cross-site state change gets no further.
  app.use(hostGuard(parts.allowedHosts ?? ['localhost', '.localhost']));
  app.use(securityHeaders);
  app.use(crossSiteGuard(parts.ownOrigins));
  // Not strict: `null` or `5` is JSON, refused where read with a message that says what it is.
  app.use(express.json({ limit: '5mb', strict: false }));
  const api = express.Router();
  for (const h of parts.authenticate ?? []) api.use(h);
  api.use(scriptRequestGuard);
  for (const h of parts.before ?? []) api.use(h);
  api.use(requireJsonBody);
  for (const r of parts.routers) api.use(r);
  api.use(notFoundRoute);
  app.use('/api/v2', api);
  for (const r of parts.rootRouters ?? []) app.use(r);
  app.use(errorMiddleware(parts.log));
  return app;
}
