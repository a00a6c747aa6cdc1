/** The steps stage: which nodes are ready, blocked or due, under maxActiveSteps and maxConcurrent. */
import type { StepDefinition } from '../spec/types.js';
import type { Ctx } from './context.js';
import { isResolving, liveExecs, ms, nodeNamed, scheduleAt, startExec, stepFor, writable } from './context.js';
import { cloneItem } from './clone.js';
import { completeParallel } from './results.js';
import type { ItemState, NodeState } from './state.js';
import { dependencyIndexes } from './state.js';
import { isNodeDone, isNodeSuccess, NodeStatus } from './status.js';

type Readiness = { ready: true } | { ready: false; block?: { status: NodeStatus; error: string } };

/** SPEC 2.3 depends + continueOn: dependants of a failure abort, of a skip are skipped (unless continueOn allows). */
export function readiness(ctx: Ctx, step: StepDefinition): Readiness {
  for (const dep of step.depends) {
    const d = nodeNamed(ctx, dep);
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

/**
 * What readiness() would say, cheaply, for the common case of a large DAG: a node that waits for a
 * dependency not finished yet, all those before it (in the order of its depends) having succeeded, is
 * neither ready nor blocked. The dependencies are read by index, without looking up names or allocating
 * (decide() passes over every node each time: with thousands of steps this check is most of its work).
 * Anything else (a dependency that finished other than successfully, one that is not a main step, a
 * state laid out differently from the definition) returns false: readiness() decides.
 */
export function waitsForDependency(ctx: Ctx, i: number, node: NodeState, all = dependencyIndexes(ctx.def)): boolean {
  const steps = ctx.def.steps;
  const deps = steps[i]?.name === node.name ? all[i] : undefined;
  if (!deps) return false;
  const nodes = ctx.s.nodes;
  for (const j of deps) {
    const d = nodes[j];
    if (d === undefined || d.name !== steps[j]!.name) return false;
    if (!isNodeDone(d.status)) return true;
    if (!isNodeSuccess(d.status)) return false;
  }
  return false;
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
  node.items = unique.map((item, index) => cloneItem({ index, item, status: NodeStatus.NotStarted, attempt: 0, retryCount: 0, error: '' }));
}

/** Starts due retries/repeats of running nodes and items. */
function resumeDue(ctx: Ctx, current: NodeState, step: StepDefinition): void {
  if (current.items) return resumeItems(ctx, current, step);
  if (!current.nextAt) return;
  const at = ms(current.nextAt);
  if (at > ctx.now) return scheduleAt(ctx, at);
  const node = writable(ctx, current);
  node.nextAt = undefined;
  startExec(ctx, { node: node.name, attempt: node.attempt });
  node.attempt += 1;
}

/** Starts due and startable items; the node is copied only when one is (a wake with nothing due copies nothing). */
function resumeItems(ctx: Ctx, current: NodeState, step: StepDefinition): void {
  if (current.items!.length === 0) return completeParallel(ctx, writable(ctx, current), step);
  const limit = step.parallel && step.parallel.maxConcurrent > 0 ? step.parallel.maxConcurrent : Infinity;
  let live = liveExecs(current).length;
  let node = current;
  const mine = (i: number): ItemState => {
    if (node === current) node = writable(ctx, current);
    return node.items![i]!;
  };
  current.items!.forEach((seen, i) => {
    if (seen.status === NodeStatus.Running && seen.nextAt) {
      const at = ms(seen.nextAt);
      if (at > ctx.now) return scheduleAt(ctx, at);
      const item = mine(i);
      item.nextAt = undefined;
      startExec(ctx, { node: node.name, item: item.index, attempt: item.attempt });
      item.attempt += 1;
    } else if (seen.status === NodeStatus.NotStarted && live < limit) {
      const item = mine(i);
      item.status = NodeStatus.Running;
      startExec(ctx, { node: node.name, item: item.index, attempt: item.attempt });
      item.attempt += 1;
      live += 1;
    }
  });
}

/** The step of the main node at index i: def.steps is in the same order (see mainNodeIndex). */
function stepAt(ctx: Ctx, i: number, node: NodeState): StepDefinition {
  const step = ctx.def.steps[i];
  return step?.name === node.name ? step : stepFor(ctx, node);
}

/** One pass over the main nodes; returns true when something changed (so the caller loops). */
export function scheduleSteps(ctx: Ctx): boolean {
  let changed = false;
  const cap = ctx.def.maxActiveSteps > 0 ? ctx.def.maxActiveSteps : Infinity;
  const nodes = ctx.s.nodes;
  const deps = dependencyIndexes(ctx.def);
  let active = 0;
  for (const n of nodes) if (busy(n)) active += 1;
  for (let i = 0; i < nodes.length; i++) {
    const current = nodes[i]!;
    if (current.status === NodeStatus.Running && !isResolving(current)) {
      resumeDue(ctx, current, stepAt(ctx, i, current));
      continue;
    }
    if (current.status !== NodeStatus.NotStarted || waitsForDependency(ctx, i, current, deps)) continue;
    const step = stepAt(ctx, i, current);
    const r = readiness(ctx, step);
    if (!r.ready) {
      if (r.block) {
        const node = writable(ctx, current);
        node.status = r.block.status;
        node.error = r.block.error;
        node.finishedAt = ctx.nowIso;
        changed = true;
      }
      continue;
    }
    if (active >= cap) continue;
    startNode(ctx, writable(ctx, current), step);
    active += 1;
    changed = true;
  }
  return changed;
}
