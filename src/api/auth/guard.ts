/**
 * The one authentication and authorisation middleware (SPEC 5): mounted before every router, it finds
 * the request's row in the policy table (auth/policy.ts), authenticates the caller when the row needs a
 * role, answers 401 (missing or invalid credentials) or 403 (role too low), and leaves the principal in
 * res.locals.principal. When nothing is configured (mode none, no static credentials) it checks nothing.
 * Rows with an audit action get an audit line when the response is sent.
 */
import type { Request, RequestHandler, Response } from 'express';
import { DomainError } from '../../core/errors.js';
import { roleAtLeast, type Role } from '../../core/auth/roles.js';
import type { Auditor } from '../../auth/audit.js';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Policy, PolicyRule } from '../../auth/policy.js';
import { actorOf } from '../../auth/principal.js';
import { principalOf, sourceOf } from './context.js';

export interface GuardDeps {
  authenticator: Authenticator;
  policy: Policy;
  metrics: 'private' | 'public';
  audit: Auditor;
  /** Offer Basic in WWW-Authenticate (mode none with basic credentials). */
  basic: boolean;
}

function needed(rule: PolicyRule, metrics: GuardDeps['metrics']): Role | 'public' {
  if (rule.access === 'metrics') return metrics === 'public' ? 'public' : 'viewer';
  return rule.access === 'webhook' || rule.access === 'ticket' ? 'public' : rule.access;
}

function auditWhenSent(d: GuardDeps, rule: PolicyRule, req: Request, res: Response): void {
  const action = rule.audit;
  if (!action || !d.audit.enabled) return;
  // /webhooks/{fileName} and /dags/{fileName}/webhook...: the DAG is the second segment. Read now: once
  // the response is sent, express has restored the full URL.
  const target = req.path.split('/').filter(Boolean)[1] ?? '';
  res.once('finish', () => {
    const p = principalOf(res);
    void d.audit.record({
      actor: action === 'webhook.trigger' ? `webhook:${target}` : actorOf(p), action, target, source: sourceOf(req),
      outcome: res.statusCode < 400 ? 'success' : 'failure', details: { status: res.statusCode },
    });
  });
}

export function authGuard(d: GuardDeps): RequestHandler {
  const challenge = `Bearer realm="svc"${d.basic ? ', Basic realm="svc"' : ''}`;
  return async (req, res, next) => {
    const rule = d.policy.match(req.method, req.path);
    auditWhenSent(d, rule, req, res);
    const min = needed(rule, d.metrics);
    if (min === 'public' || !d.authenticator.enforcing) return next();
    const outcome = await d.authenticator.authenticate(req.get('authorization'));
    if (!outcome || 'problem' in outcome) {
      res.set('WWW-Authenticate', challenge);
      throw new DomainError('unauthorized', outcome ? outcome.problem : 'authentication required: send Authorization: Bearer <token>');
    }
    const p = outcome.principal;
    res.locals.principal = p;
    if (!roleAtLeast(p.role, min)) {
      throw new DomainError('forbidden', `${req.method} ${req.path} needs role ${min} or higher; ${actorOf(p)} has role ${p.role}`, { requiredRole: min, role: p.role });
    }
    next();
  };
}
