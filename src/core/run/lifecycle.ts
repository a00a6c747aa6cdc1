/** Run-level lifecycle: stop and timeout, handlers, and the final status rules of SPEC 3.1 / 6. */
import type { HandlerKind } from '../spec/types.js';
import type { Ctx } from './context.js';
import { isResolving, liveExecs, ms, scheduleAt, stepFor, writable } from './context.js';
import { startNode } from './schedule.js';
import type { NodeState, RunState } from './state.js';
import { isNodeDone, isNodeSuccess, NodeStatus, RunStatus } from './status.js';

/** True while any execution runs or a parallel node resolves its items. */
export const anyLive = (nodes: NodeState[]): boolean => nodes.some((n) => liveExecs(n).length > 0 || isResolving(n));

/** Sends signalOnStop once to every live execution, then SIGKILL after maxCleanUpTimeSec (immediately on timeout). */
export function signalLive(ctx: Ctx, nodes: NodeState[], immediateKill: boolean): void {
  const graceMs = ctx.def.maxCleanUpTimeSec * 1000;
  for (const current of nodes) {
    const execs = liveExecs(current);
    if (execs.length === 0 || current.killed) continue;
    if (!current.signalledAt) {
      const node = writable(ctx, current);
      node.signalledAt = ctx.nowIso;
      const signal = immediateKill ? 'SIGKILL' : stepFor(ctx, node).signalOnStop;
      node.killed = immediateKill;
      for (const exec of execs) ctx.effects.push({ kind: 'signal', exec, signal });
      if (!immediateKill) scheduleAt(ctx, ctx.now + graceMs);
      continue;
    }
    const at = ms(current.signalledAt) + graceMs;
    if (at > ctx.now) {
      scheduleAt(ctx, at);
      continue;
    }
    writable(ctx, current).killed = true;
    for (const exec of execs) ctx.effects.push({ kind: 'signal', exec, signal: 'SIGKILL' });
  }
}

/** Nodes waiting for a retry/repeat interval or for approval stop at once when the run stops. */
export function abortIdle(ctx: Ctx): void {
  for (const current of ctx.s.nodes) {
    const idleRunning = current.status === NodeStatus.Running && liveExecs(current).length === 0 && !isResolving(current);
    if (idleRunning || current.status === NodeStatus.Waiting) {
      const node = writable(ctx, current);
      node.status = NodeStatus.Aborted;
      node.finishedAt = ctx.nowIso;
      node.nextAt = undefined;
      for (const item of node.items ?? []) if (!isNodeDone(item.status)) item.status = NodeStatus.Aborted;
    }
  }
}

/** A DAG timeout ends the run: steps that never started are aborted, as the reference marks them. */
export function abortUnstarted(ctx: Ctx): void {
  for (const current of ctx.s.nodes) {
    if (current.status !== NodeStatus.NotStarted) continue;
    const node = writable(ctx, current);
    node.status = NodeStatus.Aborted;
    node.finishedAt = ctx.nowIso;
  }
}

/** SPEC 3.1 final status of the main steps (the reference's order of rules). */
export function computeOutcome(ctx: Ctx): RunStatus {
  const nodes = ctx.s.nodes;
  const allOk = nodes.every((n) => isNodeSuccess(n.status) || n.status === NodeStatus.Skipped);
  if (ctx.s.stopRequestedAt && !allOk) return RunStatus.Aborted;
  if (ctx.s.timedOut) return RunStatus.Failed;
  if (nodes.some((n) => n.status === NodeStatus.Rejected)) return RunStatus.Rejected;
  const hardFailure = nodes.some((n) => (n.status === NodeStatus.Failed && !n.continued) || n.status === NodeStatus.Aborted);
  const softFailure = nodes.some((n) => (n.status === NodeStatus.Failed && n.continued) || n.status === NodeStatus.PartiallySucceeded);
  const someSuccess = nodes.some((n) => n.status === NodeStatus.Succeeded);
  if (!hardFailure && softFailure && someSuccess) return RunStatus.PartiallySucceeded;
  if (nodes.some((n) => n.status === NodeStatus.Failed || n.status === NodeStatus.Aborted)) return RunStatus.Failed;
  return RunStatus.Succeeded;
}

export const handlerNode = (ctx: Ctx, kind: HandlerKind): NodeState | undefined => ctx.s.handlers.find((h) => h.handler === kind);

/**
 * Drives one handler: starts it if defined and not started. Returns 'none' (no such handler),
 * 'running', 'succeeded' or 'failed'.
 */
export function runHandler(ctx: Ctx, kind: HandlerKind): 'none' | 'running' | 'succeeded' | 'failed' {
  const node = handlerNode(ctx, kind);
  if (!node) return 'none';
  if (node.status === NodeStatus.NotStarted) {
    startNode(ctx, writable(ctx, node), stepFor(ctx, node));
    return 'running';
  }
  if (!isNodeDone(node.status)) return 'running';
  return isNodeSuccess(node.status) || node.status === NodeStatus.Skipped ? 'succeeded' : 'failed';
}

export function handlerForOutcome(outcome: RunStatus): HandlerKind {
  if (outcome === RunStatus.Succeeded || outcome === RunStatus.PartiallySucceeded) return 'success';
  if (outcome === RunStatus.Aborted) return 'abort';
  return 'failure';
}

/**
 * The run status a handler sees (DAG_RUN_STATUS): the outcome decided before the success, failure or
 * abort handler (the exit handler sees it too, or failed once the handler before it failed), and, in
 * the init handler, before any outcome exists, the run's own status: running (as the reference).
 */
export const handlerRunStatus = (s: Pick<RunState, 'status' | 'outcome'>): RunStatus => s.outcome ?? s.status;
