/**
 * The seam where authentication (a later issue) plugs in: every route declares who may call it, and
 * the app asks an optional guard for a handler per access level. Until a guard is given, nothing is
 * checked (authentication off, SPEC 5 "None"); no route fakes a check of its own.
 */
import type { RequestHandler } from 'express';

/**
 * public: anyone; user: any authenticated caller; admin: role admin (SPEC 5.3); webhook: a webhook
 * token, checked by the route itself.
 */
export type RouteAccess = 'public' | 'user' | 'admin' | 'webhook';

export type AccessGuard = (access: RouteAccess) => RequestHandler;

const open: RequestHandler = (_req, _res, next) => next();

export const guardFor = (guard: AccessGuard | undefined, access: RouteAccess): RequestHandler =>
  guard ? guard(access) : open;
