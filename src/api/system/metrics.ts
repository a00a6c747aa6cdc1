/**
 * GET /metrics (SPEC 4.1): text exposition format. Access `public`: anyone. Access `private` (the
 * default): only a caller the auth area accepted (it leaves the principal in res.locals), else 401 —
 * also when no credential is configured at all (private metrics stay private; set SVC_SERVER_METRICS=public).
 */
import { Router } from 'express';
import { DomainError } from '../../core/errors.js';

export interface MetricsDeps {
  access: 'private' | 'public';
  /** Why private metrics cannot be read at all (no credential configured), or undefined. */
  unavailableReason?(): string | undefined;
  contentType: string;
  render(): Promise<string>;
}

export function createMetricsRouter(d: MetricsDeps): Router {
  const r = Router();
  r.get('/metrics', async (req, res) => {
    if (d.access === 'private' && res.locals.principal === undefined) {
      res.set('WWW-Authenticate', 'Bearer realm="svc", Basic realm="svc"');
      const why = d.unavailableReason?.();
      throw new DomainError('unauthorized', why ?? 'metrics access is private: send a valid Authorization header', { metrics: 'private' });
    }
    const text = await d.render();
    res.set('Content-Type', d.contentType).set('Cache-Control', 'no-store').send(text);
  });
  return r;
}
