/**
 * One turn of a run: observations in; the next state, the effects to apply and the next timer out.
 * `nextTurn` is the pure step every driver shares. `turn(key)` is the whole of it for a caller that
 * keeps nothing in memory between turns (an operator's reconcile): load, read the pending requests,
 * decide, save with compare-and-swap, acknowledge the requests, append the run log, and hand back the
 * effects, which the caller applies after the save (idempotently: executions are ensured by identity).
 * The embedded driver keeps the run in memory instead and writes its status behind (StatusWriter).
 */
import { decide } from '../../core/run/decide.js';
import type { Effect, Observation } from '../../core/run/state.js';
import type { RunKey } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { runLog } from '../../core/ports/log-store.js';
import type { EngineDeps } from '../deps.js';
import { logText, runLogLines } from './run-log.js';

export interface TurnResult {
  run: DagRunResource;
  effects: Effect[];
  /** When the run must turn again even if nothing is observed (retry and repeat intervals, timeouts). */
  wakeAt?: string;
  /** False when nothing changed: nothing to save. */
  changed: boolean;
  /** Run log lines of this turn's changes. */
  lines: string[];
}

/** The pure step: decide, and what changed. */
export function nextTurn(run: DagRunResource, observed: Observation[], now: number): TurnResult {
  const d = decide(run.spec.definition, run.status.run, observed, now);
  const wakeAt = d.wakeAt ? { wakeAt: d.wakeAt } : {};
  // Observations or effects always change the state; only a timer wake-up needs the comparison.
  const changed = observed.length > 0 || d.effects.length > 0 || JSON.stringify(d.state) !== JSON.stringify(run.status.run);
  if (!changed) return { run, effects: [], ...wakeAt, changed, lines: [] };
  return { run: { ...run, status: { ...run.status, run: d.state } }, effects: d.effects, ...wakeAt, changed, lines: runLogLines(run.status.run, d.state) };
}

export type TurnDeps = Pick<EngineDeps, 'store' | 'logs' | 'clock' | 'controls' | 'onChange'> & Partial<Pick<EngineDeps, 'log'>>;

/** A conflicting write (an API request) makes the turn start over from the load: this many times. */
const TRIES = 7;

/** One stateless turn (see the header). `observed`: what the caller saw since the last turn (ended executions). */
export async function turn(deps: TurnDeps, key: RunKey, observed: Observation[] = []): Promise<TurnResult> {
  for (let i = 1; ; i++) {
    const run = await deps.store.get(key);
    if (!run) throw new NotFoundError(`dag-run ${key.dagRunId} of ${key.dagName} not found`);
    const pending = (await deps.controls?.pending(key)) ?? [];
    const stop: Observation[] = !run.status.run.stopRequestedAt && await deps.store.isStopRequested(key) ? [{ type: 'stop' }] : [];
    const t = nextTurn(run, [...observed, ...stop, ...pending.map((c) => c.observation)], deps.clock.now());
    if (!t.changed) return t;
    let saved: DagRunResource;
    try {
      saved = await deps.store.updateStatus(key, run.metadata.resourceVersion, t.run.status);
    } catch (e) {
      if (e instanceof ConflictError && i < TRIES) continue;
      throw e;
    }
    // The state is saved: its effects must reach the caller whatever fails now. An acknowledgement that
    // fails leaves the request pending (applied again harmlessly); the run log is informational.
    await afterSave(deps, key, pending.map((c) => c.id), saved, t.lines);
    return { ...t, run: saved };
  }
}

async function afterSave(deps: TurnDeps, key: RunKey, acks: string[], saved: DagRunResource, lines: string[]): Promise<void> {
  const warn = (what: string) => (e: unknown) => deps.log?.warn(`Failed to ${what} after a turn`, { dag: key.dagName, dagRunId: key.dagRunId, error: e instanceof Error ? e.message : String(e) });
  if (acks.length > 0) await deps.controls!.ack(key, acks).catch(warn('acknowledge requests'));
  try { deps.onChange?.(saved); } catch (e) { warn('report the change')(e); }
  if (lines.length > 0) await deps.logs.append(runLog(key, saved.status.attemptId), logText(lines, deps.clock.now())).catch(warn('append the run log'));
}
