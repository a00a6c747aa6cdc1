/** GET /health (SPEC 4.1): public; 503 with `error` when the service cannot work. */
import { Router } from 'express';

export interface HealthDeps {
  version: string;
  startedAt: number;
  now(): number;
  /** A reason the service cannot work (e.g. data directory not writable), or undefined. Must be cheap. */
  problem(): Promise<string | undefined>;
}

export function createHealthRouter(d: HealthDeps): Router {
  const r = Router();
  r.get('/health', async (_req, res) => {
    const error = await d.problem().catch((e: unknown) => (e instanceof Error ? e.message : String(e)));
    const now = d.now();
    const body = {
      status: error ? 'unhealthy' : 'healthy', version: d.version,
      uptime: Math.max(0, Math.floor((now - d.startedAt) / 1000)), timestamp: new Date(now).toISOString(),
    };
    res.set('Cache-Control', 'no-store');
    if (error) res.status(503).json({ ...body, error });
    else res.json(body);
  });
  return r;
}
