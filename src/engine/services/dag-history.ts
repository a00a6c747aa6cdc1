/**
 * Runs seen from a DAG (SPEC 4.3): the latest run of each listed DAG, a DAG's recent runs with the
 * step-status grid, and stop-all.
 *
 * The latest run of a DAG is cached: GET /dags asks for it once per listed DAG, and reading a DAG's
 * whole history each time would make the listing cost grow with history. An entry is dropped on
 * every saved change of a run of that DAG (`invalidate`, fed by the run events of this process) and
 * expires after `ttlMs`, which bounds staleness for runs written by other processes (CLI).
 */
import type { DagRunsApi } from './api.js';
import { NotFoundError } from '../../core/errors.js';
import type { Clock } from '../../core/ports/clock.js';
import type { RunStore } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import { isSafeDagName } from '../../core/resources.js';
import { isRunActive } from '../../core/run/status.js';
import type { RunService } from './run-service.js';

export interface GridRow { name: string; history: number[] }

export const DEFAULT_HISTORY_LIMIT = 30;
const DEFAULT_TTL_MS = 2000;
const MAX_CACHED = 10_000;

export class DagHistory implements DagRunsApi {
  private readonly latestCache = new Map<string, { at: number; run: Promise<DagRunResource | undefined> }>();

  constructor(
    private readonly runs: RunService,
    private readonly store: RunStore,
    private readonly clock: Clock,
    private readonly ttlMs = DEFAULT_TTL_MS,
  ) {}

  /** The newest root run of a DAG name, or undefined (also for names that cannot have runs). */
  latest(dagName: string): Promise<DagRunResource | undefined> {
    if (!isSafeDagName(dagName)) return Promise.resolve(undefined);
    const now = this.clock.now();
    const hit = this.latestCache.get(dagName);
    if (hit && now - hit.at < this.ttlMs) return hit.run;
    if (this.latestCache.size >= MAX_CACHED) this.latestCache.clear();
    const run = this.runs.latest(dagName).catch(() => undefined);
    this.latestCache.set(dagName, { at: now, run });
    return run;
  }

  invalidate(dagName: string): void {
    this.latestCache.delete(dagName);
  }

  /** One run of the DAG (`latest` allowed); NotFoundError also for names that cannot have runs. */
  async get(dagName: string, dagRunId: string): Promise<DagRunResource> {
    if (!isSafeDagName(dagName)) throw new NotFoundError(`dag-run ${dagRunId} of DAG ${dagName} not found`);
    return this.runs.get({ dagName, dagRunId });
  }

  /** Newest root runs first, at most limit. */
  async recent(dagName: string, limit = DEFAULT_HISTORY_LIMIT): Promise<DagRunResource[]> {
    if (!isSafeDagName(dagName)) return [];
    return this.store.list({ dagName, rootOnly: true, limit });
  }

  /** Requests a stop of every active (running or waiting) root run of the DAG; failures are reported, not thrown. */
  async stopAll(dagName: string): Promise<string[]> {
    const errors: string[] = [];
    for (const run of await this.recent(dagName, Number.MAX_SAFE_INTEGER)) {
      if (!isRunActive(run.status.run.status)) continue;
      try {
        await this.runs.stop({ dagName, dagRunId: run.spec.dagRunId });
      } catch (e) {
        errors.push(`${run.spec.dagRunId}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return errors;
  }
}

/**
 * One row per step (current definition order first, then names only older runs had), then one per
 * handler node; history holds each listed run's node status (0 when that run has no such node).
 */
export function gridData(stepNames: string[], runs: DagRunResource[]): GridRow[] {
  const names = [...stepNames];
  const handlers: string[] = [];
  for (const r of runs) {
    for (const n of r.status.run.nodes) if (!names.includes(n.name)) names.push(n.name);
    for (const h of r.status.run.handlers) if (!handlers.includes(h.name)) handlers.push(h.name);
  }
  const statusOf = (r: DagRunResource, name: string) =>
    (r.status.run.nodes.find((n) => n.name === name) ?? r.status.run.handlers.find((n) => n.name === name))?.status ?? 0;
  return [...names, ...handlers].map((name) => ({ name, history: runs.map((r) => statusOf(r, name)) }));
}
