/** The steps stage: which nodes are ready, blocked or due, under maxActiveSteps and maxConcurrent. */
import type { StepDefinition } from '../spec/types.js';
import type { Ctx } from './context.js';
import { isResolving, liveExecs, ms, scheduleAt, startExec, stepFor } from './context.js';
import { completeParallel } from './results.js';
import type { ItemState, NodeState } from './state.js';
import { isNodeDone, NodeStatus } from './status.js';

type Readiness = { ready: true } | { ready: false; block?: { status: NodeStatus; error: string } };

/** SPEC 2.3 depends + continueOn: dependants of a failure abort, of a skip are skipped (unless continueOn allows). */
export function readiness(ctx: Ctx, step: StepDefinition): Readiness {
  for (const dep of step.depends) {
    const d = ctx.byName.get(dep);
    if (!d) continue;
    if (!isNodeDone(d.status)) return { ready: false };
    const depStep = stepFor(ctx, d);
    if (d.status === NodeStatus.Skipped && !depStep.continueOn.skipped) {
      return { ready: false, block: { status: NodeStatus.Skipped, error: 'upstream skipped' } };
    }
    if (d.status === NodeStatus.Failed && !d.continued) {
      return { ready: false, block: { status: NodeStatus.Aborted, error: 'upstream failed' } };
    }
    if (d.status === NodeStatus.Aborted || d.status === NodeStatus.Rejected) {
      return { ready: false, block: { status: NodeStatus.Aborted, error: d.status === NodeStatus.Rejected ? 'upstream rejected' : 'upstream aborted' } };
    }
  }
  return { ready: true };
}

/** Steps currently occupying a slot of maxActiveSteps. */
const busy = (n: NodeState): boolean => n.status === NodeStatus.Running;

export function startNode(ctx: Ctx, node: NodeState, step: StepDefinition): void {
  node.status = NodeStatus.Running;
  node.startedAt = ctx.nowIso;
  node.finishedAt = '';
  node.error = '';
  if (step.parallel) {
    if (Array.isArray(step.parallel.items)) initItems(node, step.parallel.items.map(itemText));
    else ctx.effects.push({ kind: 'resolveItems', node: node.name });
    return;
  }
  startExec(ctx, { node: node.name, attempt: node.attempt });
  node.attempt += 1;
}

const itemText = (i: unknown): string => (typeof i === 'string' ? i : JSON.stringify(i));

export function initItems(node: NodeState, items: string[]): void {
  const unique = [...new Set(items)];
  node.items = unique.map((item, index): ItemState => ({ index, item, status: NodeStatus.NotStarted, attempt: 0, retryCount: 0, error: '' }));
}

/** Starts due retries/repeats of running nodes and items. */
function resumeDue(ctx: Ctx, node: NodeState, step: StepDefinition): void {
  if (node.items) return resumeItems(ctx, node, step);
  if (!node.nextAt) return;
  const at = ms(node.nextAt);
  if (at > ctx.now) return scheduleAt(ctx, at);
  delete node.nextAt;
  startExec(ctx, { node: node.name, attempt: node.attempt });
  node.attempt += 1;
}

function resumeItems(ctx: Ctx, node: NodeState, step: StepDefinition): void {
  if (node.items!.length === 0) return completeParallel(ctx, node, step);
  const limit = step.parallel && step.parallel.maxConcurrent > 0 ? step.parallel.maxConcurrent : Infinity;
  let live = liveExecs(node).length;
  for (const item of node.items!) {
    if (item.status === NodeStatus.Running && item.nextAt) {
      const at = ms(item.nextAt);
      if (at > ctx.now) {
        scheduleAt(ctx, at);
        continue;
      }
      delete item.nextAt;
      startExec(ctx, { node: node.name, item: item.index, attempt: item.attempt });
      item.attempt += 1;
    } else if (item.status === NodeStatus.NotStarted && live < limit) {
      item.status = NodeStatus.Running;
      startExec(ctx, { node: node.name, item: item.index, attempt: item.attempt });
      item.attempt += 1;
      live += 1;
    }
  }
}

/** One pass over the main nodes; returns true when something changed (so the caller loops). */
export function scheduleSteps(ctx: Ctx): boolean {
  let changed = false;
  const cap = ctx.def.maxActiveSteps > 0 ? ctx.def.maxActiveSteps : Infinity;
  let active = ctx.s.nodes.filter(busy).length;
  for (const node of ctx.s.nodes) {
    const step = stepFor(ctx, node);
    if (node.status === NodeStatus.Running && !isResolving(node)) {
      resumeDue(ctx, node, step);
      continue;
    }
    if (node.status !== NodeStatus.NotStarted) continue;
    const r = readiness(ctx, step);
    if (!r.ready) {
      if (r.block) {
        node.status = r.block.status;
        node.error = r.block.error;
        node.finishedAt = ctx.nowIso;
        changed = true;
      }
      continue;
    }
    if (active >= cap) continue;
    startNode(ctx, node, step);
    active += 1;
    changed = true;
  }
  return changed;
}
