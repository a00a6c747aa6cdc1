/** GET /services/resources/history?duration= (SPEC 4.1; the body is an SPEC gap, see docs/api.md). */
import { Router } from 'express';
import { BadRequestError } from '../../core/errors.js';
import { parseDurationMs } from '../../core/spec/blocks.js';
import { queryString } from '../input.js';

export interface ResourceHistoryDeps {
  /** Samples of the last `durationMs`, as {cpu, memory, disk, load} arrays of {timestamp, value}. */
  history(durationMs: number): unknown;
  intervalMs: number;
  retentionMs: number;
}

const DEFAULT_MS = 3600_000;

export function parseHistoryDuration(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_MS;
  const ms = parseDurationMs(raw);
  if (ms === undefined || ms <= 0 || !Number.isFinite(ms)) {
    throw new BadRequestError(`duration must be a duration like 30m, 1h or 1h30m (units ns, us, ms, s, m, h), got ${JSON.stringify(raw)}`);
  }
  return ms;
}

export function createResourceHistoryRouter(d: ResourceHistoryDeps): Router {
  const r = Router();
  r.get('/services/resources/history', (req, res) => {
    const ms = parseHistoryDuration(queryString(req, 'duration', 32));
    res.json({ ...(d.history(ms) as object), intervalSeconds: d.intervalMs / 1000, retentionSeconds: d.retentionMs / 1000 });
  });
  return r;
}
