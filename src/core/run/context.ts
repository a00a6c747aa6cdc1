/** Shared working context of one decide() call: the mutable copy of the state plus collected effects. */
import type { DagDefinition, StepDefinition } from '../spec/types.js';
import type { Effect, ExecRef, NodeState, RunState } from './state.js';
import { stepOf } from './state.js';

export interface Ctx {
  def: DagDefinition;
  s: RunState;
  now: number;
  nowIso: string;
  effects: Effect[];
  wake: number[];
  /** Main nodes by name, for dependency lookups. */
  byName: Map<string, NodeState>;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const ms = (isoTime: string): number => Date.parse(isoTime);

export function findNode(s: RunState, name: string): NodeState | undefined {
  return s.nodes.find((n) => n.name === name) ?? s.handlers.find((n) => n.name === name);
}

export function stepFor(ctx: Ctx, node: NodeState): StepDefinition {
  const step = stepOf(ctx.def, node);
  if (!step) throw new Error(`no step definition for node ${node.name}`);
  return step;
}

/** Executions that are running now (not ones waiting for a retry or repeat interval). */
export function liveExecs(node: NodeState): ExecRef[] {
  if (node.items) {
    return node.items
      .filter((i) => i.status === 1 && !i.nextAt)
      .map((i) => ({ node: node.name, item: i.index, attempt: i.attempt - 1 }));
  }
  if (node.status === 1 && !node.nextAt && node.attempt > 0) return [{ node: node.name, attempt: node.attempt - 1 }];
  return [];
}

/** A parallel node whose items are being resolved counts as busy without an execution. */
export const isResolving = (node: NodeState): boolean => node.status === 1 && node.items === undefined && node.attempt === 0;

export function startExec(ctx: Ctx, exec: ExecRef): void {
  ctx.effects.push({ kind: 'exec', exec });
}

export function scheduleAt(ctx: Ctx, whenMs: number): void {
  ctx.wake.push(whenMs);
}
