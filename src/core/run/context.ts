/** Shared working context of one decide() call: the mutable copy of the state plus collected effects. */
import type { DagDefinition, StepDefinition } from '../spec/types.js';
import { cloneNode } from './clone.js';
import type { Effect, ExecRef, NodeState, RunState } from './state.js';
import { findNode, mainNodeIndex, stepOf } from './state.js';

export interface Ctx {
  def: DagDefinition;
  s: RunState;
  now: number;
  nowIso: string;
  effects: Effect[];
  wake: number[];
  /**
   * Nodes copied in this call. The state is copied on write: s.nodes and s.handlers start as copies of
   * the previous arrays holding the previous node objects, and a node is copied (and put in its place)
   * the first time this call changes it, so an unchanged node stays the very object it was.
   */
  own: Set<NodeState>;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const ms = (isoTime: string): number => Date.parse(isoTime);

/** A main or handler node by name, as it is now (read only: see writable()). */
export const nodeNamed = (ctx: Ctx, name: string): NodeState | undefined => findNode(ctx.def, ctx.s, name);

/** The copy of a node that this call may change; every change of a node goes through it. */
export function writable(ctx: Ctx, node: NodeState): NodeState {
  if (ctx.own.has(node)) return node;
  const list = node.handler ? ctx.s.handlers : ctx.s.nodes;
  const i = node.handler ? list.indexOf(node) : mainNodeIndex(ctx.def, ctx.s, node.name);
  if (list[i] !== node) throw new Error(`node ${node.name} is not part of the run state`);
  const copy = cloneNode(node);
  list[i] = copy;
  ctx.own.add(copy);
  return copy;
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
