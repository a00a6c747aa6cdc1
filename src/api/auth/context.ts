/** What the authentication routers share: the principal of a request, and the builtin-mode check. */
import type { Request, Response } from 'express';
import { BadRequestError, DomainError, NotFoundError } from '../../core/errors.js';
import { actorOf, type Principal } from '../../auth/principal.js';
import type { Auditor } from '../../auth/audit.js';

/** The principal the guard attached (undefined when nothing is checked: authentication off). */
export const principalOf = (res: Response): Principal | undefined => res.locals.principal as Principal | undefined;

export function requirePrincipal(res: Response): Principal {
  const p = principalOf(res);
  if (!p) throw new DomainError('unauthorized', 'authentication required');
  return p;
}

export function requireBuiltin(enabled: boolean): void {
  if (!enabled) throw new NotFoundError('builtin authentication is off: start the server with SVC_AUTH_MODE=builtin');
}

/** A builtin-mode service: 404 when builtin authentication is off. */
export function builtinService<S>(enabled: boolean, service: S | undefined): S {
  requireBuiltin(enabled);
  return service!;
}

/** A successful administrative action in the audit trail, by the request's principal. */
export function auditSuccess(audit: Auditor, req: Request, res: Response, action: string, target: string, details?: Record<string, string | boolean>): Promise<void> {
  return audit.record({ actor: actorOf(principalOf(res)), action, target, source: sourceOf(req), outcome: 'success', ...(details ? { details } : {}) });
}

/** The source address of a request for the audit trail. */
export const sourceOf = (req: Request): string | undefined => req.ip ?? req.socket.remoteAddress;

/** An id path parameter (user or API key ids are uuids; anything else short and plain is looked up). */
export function idParam(req: Request, name: string): string {
  const v = req.params[name];
  if (typeof v !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(v)) throw new BadRequestError(`invalid ${name} ${JSON.stringify(v)}`);
  return v;
}

