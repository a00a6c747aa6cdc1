/** Applying a finished execution to its node: retry, repeat, continueOn, outputs (SPEC 2.3, 2.7). */
import type { StepDefinition } from '../spec/types.js';
import type { Ctx } from './context.js';
import { iso } from './context.js';
import { continuesOnFailure, repeatDelaySec, retryDelaySec, shouldRepeat, shouldRetry } from './policy.js';
import type { ExecResult, ItemState, NodeState } from './state.js';
import { NodeStatus } from './status.js';

const failedResult = (r: ExecResult): boolean => r.exitCode !== 0 || !!r.error;

/** Records a captured output: variables by name, outputs.json by key unless omitted. Last writer wins. */
export function recordOutput(ctx: Ctx, step: StepDefinition, value: string): void {
  if (!step.output) return;
  ctx.s.variables[step.output.name] = value;
  if (!step.output.omit) ctx.s.outputs[step.output.key] = value;
}

function finish(ctx: Ctx, node: NodeState, status: NodeStatus): void {
  node.status = status;
  node.finishedAt = ctx.nowIso;
  node.nextAt = undefined;
}

function later(ctx: Ctx, delaySec: number): string {
  return iso(ctx.now + Math.max(0, delaySec) * 1000);
}

export function applyNodeResult(ctx: Ctx, node: NodeState, step: StepDefinition, r: ExecResult): void {
  node.exitCode = r.exitCode;
  node.error = r.error ?? (r.exitCode !== 0 ? `exit status ${r.exitCode}` : '');
  if (r.output !== undefined) {
    node.output = r.output;
    recordOutput(ctx, step, r.output);
  }
  if (r.skipped) return finish(ctx, node, NodeStatus.Skipped);
  if (r.waiting) {
    node.status = NodeStatus.Waiting;
    return;
  }
  if (r.signal && (ctx.s.stopRequestedAt || ctx.s.timedOut)) return finish(ctx, node, NodeStatus.Aborted);
  const failed = failedResult(r);
  // doneCount counts executions that were not retried (as the reference counts them): a retry is the
  // same execution tried again; a repeat is a new one (repeatPolicy.limit bounds doneCount).
  const done = node.doneCount + 1;
  const rp = step.repeatPolicy;
  const stopping = !!ctx.s.stopRequestedAt || !!ctx.s.timedOut;
  if (!stopping && (!failed || (rp && rp.exitCode.length > 0)) && shouldRepeat(rp, r.exitCode, r.conditionMatched, done)) {
    node.doneCount = done;
    node.error = '';
    node.nextAt = later(ctx, repeatDelaySec(rp!, done - 1));
    return;
  }
  if (failed && !stopping && !r.timedOut && shouldRetry(step.retryPolicy, r.exitCode, node.retryCount)) {
    node.nextAt = later(ctx, retryDelaySec(step.retryPolicy!, node.retryCount));
    node.retryCount += 1;
    return;
  }
  node.doneCount = done;
  if (!failed) return finish(ctx, node, r.partial ? NodeStatus.PartiallySucceeded : NodeStatus.Succeeded);
  finishFailed(ctx, node, step, r.exitCode, !!r.outputMatched);
}

function finishFailed(ctx: Ctx, node: NodeState, step: StepDefinition, exitCode: number | undefined, outputMatched: boolean): void {
  if (continuesOnFailure(step.continueOn, exitCode, outputMatched)) {
    if (step.continueOn.markSuccess) return finish(ctx, node, NodeStatus.Succeeded);
    node.continued = true;
  }
  finish(ctx, node, NodeStatus.Failed);
}

export function applyItemResult(ctx: Ctx, node: NodeState, step: StepDefinition, item: ItemState, r: ExecResult): void {
  item.exitCode = r.exitCode;
  item.error = r.error ?? (r.exitCode !== 0 ? `exit status ${r.exitCode}` : '');
  if (r.output !== undefined) item.output = r.output;
  const stopping = !!ctx.s.stopRequestedAt || !!ctx.s.timedOut;
  if (r.skipped) item.status = NodeStatus.Skipped;
  else if (r.signal && stopping) item.status = NodeStatus.Aborted;
  else if (!failedResult(r)) item.status = r.partial ? NodeStatus.PartiallySucceeded : NodeStatus.Succeeded;
  else if (!stopping && !r.timedOut && shouldRetry(step.retryPolicy, r.exitCode, item.retryCount)) {
    item.nextAt = later(ctx, retryDelaySec(step.retryPolicy!, item.retryCount));
    item.retryCount += 1;
    return;
  } else item.status = NodeStatus.Failed;
  item.nextAt = undefined;
  if (node.items!.every((i) => i.status !== NodeStatus.Running && i.status !== NodeStatus.NotStarted)) completeParallel(ctx, node, step);
}

/**
 * All items done: the node fails if any item failed. Its output (and stdout, as the reference prints it)
 * aggregates the items': a summary, each item's result (a sub-DAG run's result object) and the outputs
 * of the items that succeeded (a sub-DAG result's `outputs`), as indented JSON.
 */
export function completeParallel(ctx: Ctx, node: NodeState, step: StepDefinition): void {
  const items = node.items ?? [];
  const ok = items.filter((i) => i.status === NodeStatus.Succeeded || i.status === NodeStatus.PartiallySucceeded || i.status === NodeStatus.Skipped);
  const failedItems = items.filter((i) => !ok.includes(i));
  node.doneCount += 1;
  const results = items.filter((i) => i.output !== undefined).map((i) => ({ ok: ok.includes(i), value: parsedOutput(i.output!) }));
  const aggregate = JSON.stringify({
    summary: { total: items.length, succeeded: ok.length, failed: failedItems.length },
    results: results.map((r) => r.value),
    outputs: results.filter((r) => r.ok).map((r) => (isRecord(r.value) && isRecord(r.value.outputs) ? r.value.outputs : r.value)),
  }, null, 2);
  ctx.effects.push({ kind: 'print', exec: { node: node.name, attempt: Math.max(0, node.attempt - 1) }, text: `${aggregate}\n` });
  if (step.output) {
    node.output = aggregate;
    recordOutput(ctx, step, aggregate);
  }
  if (failedItems.some((i) => i.status === NodeStatus.Aborted) && ctx.s.stopRequestedAt) return finish(ctx, node, NodeStatus.Aborted);
  if (failedItems.length === 0) {
    const partial = items.some((i) => i.status === NodeStatus.PartiallySucceeded);
    return finish(ctx, node, partial ? NodeStatus.PartiallySucceeded : NodeStatus.Succeeded);
  }
  const first = failedItems[0]!;
  node.exitCode = first.exitCode;
  node.error = `${failedItems.length} of ${items.length} parallel items failed: ${first.error}`;
  finishFailed(ctx, node, step, first.exitCode, false);
}

function parsedOutput(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
