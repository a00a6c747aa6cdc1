/**
 * Test support for decide(): builds definitions with the loader's defaults and simulates runs on a
 * virtual clock with scripted execution results. Used by tests only.
 */
import type { DagDefinition, StepDefinition } from '../spec/types.js';
import { decide } from './decide.js';
import type { Effect, ExecRef, ExecResult, Observation, RunState } from './state.js';
import { execKey, newRunState } from './state.js';
import { isRunTerminal } from './status.js';

export function mkStep(name: string, over: Partial<StepDefinition> = {}): StepDefinition {
  return {
    name, type: 'shell', commands: [`echo ${name}`], depends: [], env: [], signalOnStop: 'SIGTERM', mailOnError: false,
    config: {}, messages: [], preconditions: [],
    continueOn: { failure: false, skipped: false, exitCode: [], output: [], markSuccess: false }, ...over,
  };
}

export function mkDag(steps: StepDefinition[], over: Partial<DagDefinition> = {}): DagDefinition {
  return {
    name: 'test', tags: [], type: 'graph', schedule: { start: [], stop: [], restart: [] }, skipIfSuccessful: false,
    restartWaitSec: 0, maxActiveRuns: 1, maxActiveSteps: 0, timeoutSec: 0, delaySec: 0, maxCleanUpTimeSec: 5,
    preconditions: [], runConfig: { disableParamEdit: false, disableRunIdEdit: false }, params: [], env: [], secrets: [],
    dotenv: [], logOutput: 'separate', histRetentionDays: 30, maxOutputSize: 1048576, registryAuths: {},
    mailOn: { success: false, failure: false, wait: false }, handlerOn: {}, skipBaseHandlers: false, steps, ...over,
  };
}

/** A scripted execution: its result and how long it takes (ms); `hang` never finishes on its own. */
export interface Scripted { result?: ExecResult; durationMs?: number; hang?: boolean; ignoreTerm?: boolean }
export type Script = (exec: ExecRef, state: RunState) => Scripted;

export interface SimOptions {
  /** Observations to inject at a virtual time (ms since start). */
  inject?: Array<{ at: number; obs: Observation }>;
  preconditionsMet?: boolean;
  items?: Record<string, string[]>;
  maxSteps?: number;
}

export interface SimResult {
  state: RunState;
  /** Executions in start order, with their virtual start time. */
  started: Array<{ key: string; at: number }>;
  signals: Array<{ key: string; signal: string; at: number }>;
  effects: Effect[];
  maxConcurrent: number;
  endedAt: number;
}

export function simulate(def: DagDefinition, script: Script, opts: SimOptions = {}): SimResult {
  let now = 0;
  let state = newRunState(def);
  const pending: Array<{ at: number; obs: Observation }> = [...(opts.inject ?? [])];
  const running = new Map<string, { exec: ExecRef; end: number; result: ExecResult; ignoreTerm?: boolean }>();
  const out: SimResult = { state, started: [], signals: [], effects: [], maxConcurrent: 0, endedAt: 0 };
  let obs: Observation[] = [];
  for (let i = 0; i < (opts.maxSteps ?? 10_000); i++) {
    const d = decide(def, state, obs, now);
    // decide() copies on write: freezing what it returned makes any later change in place throw.
    state = deepFreeze(d.state);
    out.effects.push(...d.effects);
    for (const e of d.effects) apply(e);
    out.maxConcurrent = Math.max(out.maxConcurrent, running.size);
    if (isRunTerminal(state.status) && running.size === 0 && !pending.some((p) => p.obs.type === 'patchStatus')) break;
    const next = Math.min(
      ...[...running.values()].map((r) => r.end), ...pending.map((p) => p.at),
      d.wakeAt ? Date.parse(d.wakeAt) : Infinity,
    );
    if (next === Infinity) break;
    now = Math.max(now, next);
    obs = [];
    for (const [k, r] of running) if (r.end <= now) { obs.push({ type: 'execFinished', exec: r.exec, result: r.result }); running.delete(k); }
    for (const p of pending.filter((x) => x.at <= now)) { obs.push(p.obs); pending.splice(pending.indexOf(p), 1); }
  }
  out.state = state;
  out.endedAt = now;
  return out;

  function apply(e: Effect): void {
    if (e.kind === 'exec') {
      const sc = script(e.exec, state);
      out.started.push({ key: execKey(e.exec), at: now });
      const end = sc.hang ? Infinity : now + (sc.durationMs ?? 1000);
      running.set(execKey(e.exec), { exec: e.exec, end, result: sc.result ?? { exitCode: 0 }, ignoreTerm: !!sc.ignoreTerm });
    } else if (e.kind === 'signal') {
      out.signals.push({ key: execKey(e.exec), signal: e.signal, at: now });
      const r = running.get(execKey(e.exec));
      if (r && (!r.ignoreTerm || e.signal === 'SIGKILL')) { r.end = now + 10; r.result = { exitCode: -1, signal: e.signal, error: `signal: ${e.signal}` }; }
    } else if (e.kind === 'checkPreconditions') {
      pending.push({ at: now, obs: { type: 'preconditions', met: opts.preconditionsMet ?? true, error: 'condition not met' } });
    } else if (e.kind === 'resolveItems') {
      pending.push({ at: now, obs: { type: 'items', node: e.node, items: opts.items?.[e.node] ?? [] } });
    }
  }
}

/** Freezes a value and everything it holds (decide()'s states are plain JSON-like data). */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value as object)) deepFreeze(v);
  return value;
}

/** Script helper: per node name, a list of results for successive executions (last one repeats). */
export function byNode(map: Record<string, Array<Scripted> | Scripted>): Script {
  const counts = new Map<string, number>();
  return (exec) => {
    const entry = map[exec.node];
    if (!entry) return { result: { exitCode: 0 } };
    if (!Array.isArray(entry)) return entry;
    const n = counts.get(exec.node) ?? 0;
    counts.set(exec.node, n + 1);
    return entry[Math.min(n, entry.length - 1)] ?? { result: { exitCode: 0 } };
  };
}
