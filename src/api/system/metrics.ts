/**
 * GET /metrics (SPEC 4.1): text exposition format. Access `public`: anyone. Access `private` (the
 * default): the request must carry a credential the authorizer accepts, else 401 — also when no
 * credential is configured at all (private metrics stay private; set SVC_SERVER_METRICS=public).
 */
import { Router } from 'express';
import { DomainError } from '../../core/errors.js';
import { guardFor, type AccessGuard } from '../access.js';

export interface MetricsDeps {
  access: 'private' | 'public';
  /** Whether the Authorization header is an accepted credential (used when access is private). */
  authorize(authorization: string | undefined): boolean;
  /** Why private metrics cannot be read at all (no credential configured), or undefined. */
  unavailableReason?(): string | undefined;
  contentType: string;
  render(): Promise<string>;
  guard?: AccessGuard;
}

export function createMetricsRouter(d: MetricsDeps): Router {
  const r = Router();
  r.get('/metrics', guardFor(d.guard, d.access === 'public' ? 'public' : 'user'), async (req, res) => {
    // The auth area's middleware leaves the principal it accepted (a JWT or API key is no static credential).
    if (d.access === 'private' && res.locals.principal === undefined && !d.authorize(req.get('authorization'))) {
      res.set('WWW-Authenticate', 'Bearer realm="svc", Basic realm="svc"');
      const why = d.unavailableReason?.();
      throw new DomainError('unauthorized', why ?? 'metrics access is private: send a valid Authorization header', { metrics: 'private' });
    }
    const text = await d.render();
    res.set('Content-Type', d.contentType).set('Cache-Control', 'no-store').send(text);
  });
  return r;
}
