/**
 * decide(): the pure heart of a run (ARCHITECTURE "How a run advances"). Given the definition, the
 * current state, what was observed since the last call and the time, it returns the next state and
 * the effects to apply. It never performs I/O; calling it again with no observations is harmless.
 */
import type { DagDefinition } from '../spec/types.js';
import type { Ctx } from './context.js';
import { iso, ms, nodeNamed, scheduleAt, stepFor, writable } from './context.js';
import { abortIdle, abortUnstarted, anyLive, computeOutcome, handlerForOutcome, runHandler, signalLive } from './lifecycle.js';
import { applyItemResult, applyNodeResult } from './results.js';
import { initItems, scheduleSteps } from './schedule.js';
import { cloneState } from './clone.js';
import type { Decision, NodeState, Observation, RunState } from './state.js';
import { NodeStatus, RunStatus, isNodeDone, isRunTerminal } from './status.js';

export function decide(def: DagDefinition, prev: RunState, observations: Observation[], now: number): Decision {
  const s = cloneState(prev);
  const ctx: Ctx = { def, s, now, nowIso: iso(now), effects: [], wake: [], own: new Set() };
  if (isRunTerminal(ctx.s.status)) {
    for (const o of observations) if (o.type === 'patchStatus') observe(ctx, o);
    return { state: ctx.s, effects: [] };
  }
  if (ctx.s.status === RunStatus.NotStarted || ctx.s.status === RunStatus.Queued) begin(ctx);
  for (const o of observations) observe(ctx, o);
  advance(ctx);
  const future = ctx.wake.filter((t) => t > now);
  return { state: ctx.s, effects: ctx.effects, ...(future.length ? { wakeAt: iso(Math.min(...future)) } : {}) };
}

function begin(ctx: Ctx): void {
  const { s, def, now } = ctx;
  s.status = RunStatus.Running;
  s.stage = 'delay';
  s.startedAt = ctx.nowIso;
  if (def.delaySec > 0) s.startAfter = iso(now + def.delaySec * 1000);
  if (def.timeoutSec > 0) s.deadline = iso(now + (def.delaySec + def.timeoutSec) * 1000);
}

function observe(ctx: Ctx, o: Observation): void {
  const { s } = ctx;
  switch (o.type) {
    case 'stop':
      s.stopRequestedAt ??= ctx.nowIso;
      return;
    case 'preconditions':
      if (s.stage !== 'preconditions') return;
      if (o.met) s.stage = 'init';
      else skipToExit(ctx, RunStatus.Aborted, o.error ?? 'preconditions not met');
      return;
    case 'items': {
      const found = nodeNamed(ctx, o.node);
      if (!found || found.status !== NodeStatus.Running || found.items) return;
      const node = writable(ctx, found);
      if (o.error === undefined) return initItems(node, o.items);
      node.status = NodeStatus.Failed;
      node.error = o.error;
      node.finishedAt = ctx.nowIso;
      return;
    }
    case 'execFinished':
      return onFinished(ctx, o);
    case 'subRun': {
      const found = nodeNamed(ctx, o.exec.node);
      if (!found) return;
      const node = writable(ctx, found);
      node.subRuns = [...node.subRuns.filter((r) => r.dagRunId !== o.subRun.dagRunId), o.subRun];
      return;
    }
    case 'approve':
    case 'reject':
      return onApproval(ctx, o);
    case 'patchStatus': {
      const found = nodeNamed(ctx, o.node);
      if (!found) return;
      const node = writable(ctx, found);
      node.status = o.status;
      node.finishedAt = isNodeDone(o.status) ? ctx.nowIso : '';
      if (isRunTerminal(s.status) && !node.handler) s.status = computeOutcome(ctx);
      return;
    }
  }
}

function onFinished(ctx: Ctx, o: Extract<Observation, { type: 'execFinished' }>): void {
  const found = nodeNamed(ctx, o.exec.node);
  if (!found || found.status !== NodeStatus.Running) return;
  const step = stepFor(ctx, found);
  if (o.exec.item !== undefined) {
    const at = itemAt(found, o.exec.item);
    const current = at < 0 ? undefined : found.items![at]!;
    if (!current || current.status !== NodeStatus.Running || current.nextAt || current.attempt !== o.exec.attempt + 1) return;
    const node = writable(ctx, found);
    return applyItemResult(ctx, node, step, node.items![at]!, o.result);
  }
  if (found.nextAt || found.attempt !== o.exec.attempt + 1) return;
  const node = writable(ctx, found);
  node.signalledAt = undefined;
  node.killed = undefined;
  applyNodeResult(ctx, node, step, o.result);
}

/** Position of an item in node.items: items are laid out by index (initItems), searched otherwise. */
function itemAt(node: NodeState, index: number): number {
  const items = node.items ?? [];
  return items[index]?.index === index ? index : items.findIndex((i) => i.index === index);
}

function onApproval(ctx: Ctx, o: Extract<Observation, { type: 'approve' | 'reject' }>): void {
  const found = nodeNamed(ctx, o.node);
  if (!found || found.status !== NodeStatus.Waiting) return;
  const node = writable(ctx, found);
  node.finishedAt = ctx.nowIso;
  if (o.type === 'reject') {
    node.status = NodeStatus.Rejected;
    node.error = o.reason ? `rejected: ${o.reason}` : 'rejected';
    return;
  }
  node.status = NodeStatus.Succeeded;
  node.approvalInputs = o.inputs;
  Object.assign(ctx.s.variables, o.inputs);
}

function skipToExit(ctx: Ctx, outcome: RunStatus, error: string): void {
  ctx.s.outcome = outcome;
  ctx.s.error = error;
  ctx.s.stage = 'exit';
}

function advance(ctx: Ctx): void {
  for (let guard = 0; guard < 10_000; guard++) {
    const before = ctx.s.stage;
    const changed = step(ctx);
    if (!changed && before === ctx.s.stage) return;
  }
}

/** One transition of the stage machine; returns true when it should be run again. */
function step(ctx: Ctx): boolean {
  const { s, def } = ctx;
  switch (s.stage) {
    case 'delay':
      if (s.startAfter && ms(s.startAfter) > ctx.now && !s.stopRequestedAt) {
        scheduleAt(ctx, ms(s.startAfter));
        return false;
      }
      if (s.stopRequestedAt) return skipToExit(ctx, RunStatus.Aborted, 'stopped'), true;
      s.stage = def.preconditions.length > 0 ? 'preconditions' : 'init';
      if (s.stage === 'preconditions') ctx.effects.push({ kind: 'checkPreconditions' });
      return true;
    case 'preconditions':
      if (s.stopRequestedAt) skipToExit(ctx, RunStatus.Aborted, 'stopped');
      return false;
    case 'init':
      return stageInit(ctx);
    case 'steps':
      return stageSteps(ctx);
    case 'handler':
      return stageHandler(ctx);
    case 'exit':
      return stageExit(ctx);
    case 'done':
      return false;
  }
}

function stageInit(ctx: Ctx): boolean {
  const { s } = ctx;
  if (s.stopRequestedAt) signalLive(ctx, s.handlers, false);
  const r = runHandler(ctx, 'init');
  if (r === 'running') return false;
  if (r === 'failed') skipToHandler(ctx, RunStatus.Aborted, 'init handler failed');
  else if (s.stopRequestedAt) skipToHandler(ctx, RunStatus.Aborted, 'stopped');
  else s.stage = 'steps';
  return true;
}

function skipToHandler(ctx: Ctx, outcome: RunStatus, error: string): void {
  ctx.s.outcome = outcome;
  ctx.s.error = error;
  ctx.s.stage = 'handler';
}

function stageSteps(ctx: Ctx): boolean {
  const { s } = ctx;
  if (s.deadline && !s.timedOut && ms(s.deadline) <= ctx.now) {
    s.timedOut = true;
    s.error = `run timed out after ${ctx.def.timeoutSec}s`;
  } else if (s.deadline && !s.timedOut) scheduleAt(ctx, ms(s.deadline));
  if (s.stopRequestedAt || s.timedOut) {
    abortIdle(ctx);
    signalLive(ctx, s.nodes, !!s.timedOut);
    if (anyLive(s.nodes)) return false;
    if (s.timedOut) abortUnstarted(ctx);
    s.outcome = computeOutcome(ctx);
    s.stage = 'handler';
    return true;
  }
  const changed = scheduleSteps(ctx);
  if (anyLive(s.nodes) || changed) return updateWaiting(ctx), changed;
  if (s.nodes.some((n) => n.status === NodeStatus.Running)) return false;
  if (s.nodes.some((n) => n.status === NodeStatus.Waiting)) return updateWaiting(ctx), false;
  s.outcome = computeOutcome(ctx);
  s.stage = 'handler';
  return true;
}

/** Waiting when an approval step waits and nothing else runs; the wait handler fires once. */
function updateWaiting(ctx: Ctx): void {
  const { s } = ctx;
  const waiting = s.nodes.some((n) => n.status === NodeStatus.Waiting);
  const running = s.nodes.some((n) => n.status === NodeStatus.Running);
  s.status = waiting && !running ? RunStatus.Waiting : RunStatus.Running;
  if (s.status === RunStatus.Waiting) runHandler(ctx, 'wait');
}

function stageHandler(ctx: Ctx): boolean {
  const { s } = ctx;
  s.status = RunStatus.Running;
  const outcome = s.outcome ?? RunStatus.Failed;
  const r = runHandler(ctx, handlerForOutcome(outcome));
  if (r === 'running') return false;
  if (r === 'failed' && outcome !== RunStatus.Aborted) {
    s.outcome = RunStatus.Failed;
    s.error ||= `${handlerForOutcome(outcome)} handler failed`;
  }
  s.stage = 'exit';
  return true;
}

function stageExit(ctx: Ctx): boolean {
  const { s } = ctx;
  s.status = RunStatus.Running;
  const r = runHandler(ctx, 'exit');
  if (r === 'running') return false;
  let outcome = s.outcome ?? RunStatus.Failed;
  if (r === 'failed' && outcome !== RunStatus.Aborted) {
    outcome = RunStatus.Failed;
    s.error ||= 'exit handler failed';
  }
  s.status = outcome;
  s.stage = 'done';
  s.finishedAt = ctx.nowIso;
  ctx.effects.push({ kind: 'finished', status: outcome });
  return false;
}
