/** GET /workers (SPEC 4.8, 2.8 Worker record, snake_case fields). */
import { Router } from 'express';

export interface RunningTask {
  dagName: string; dagRunId: string; rootDagRunName: string; rootDagRunId: string;
  parentDagRunName: string; parentDagRunId: string; startedAt: string;
}

export interface Worker {
  id: string;
  labels: Record<string, string>;
  health_status: 'WORKER_HEALTH_STATUS_HEALTHY' | 'WORKER_HEALTH_STATUS_WARNING' | 'WORKER_HEALTH_STATUS_UNHEALTHY';
  last_heartbeat: string;
  running_tasks: RunningTask[];
}

export interface WorkersDeps {
  /** Throws DomainError service_unavailable when the coordinator is not running. */
  workers(): Promise<Worker[]>;
}

/** SPEC 3.4: health by the age of the last heartbeat. */
export function healthOf(ageMs: number): Worker['health_status'] {
  if (ageMs < 5000) return 'WORKER_HEALTH_STATUS_HEALTHY';
  return ageMs <= 15_000 ? 'WORKER_HEALTH_STATUS_WARNING' : 'WORKER_HEALTH_STATUS_UNHEALTHY';
}

export function createWorkersRouter(d: WorkersDeps): Router {
  const r = Router();
  r.get('/workers', async (_req, res) => {
    res.json({ workers: await d.workers() });
  });
  return r;
}
