/**
 * `svc approve <dag> --step S [--input K=V ...]` and `svc reject <dag> --step S [--reason ...]`: the
 * decision on a waiting hitl step (SPEC 2.6, 3.3), recorded for the run's driver (the foreground `svc
 * start` or the server) to apply. Without a live driver the run waits for `svc resume`.
 */
import { isValidVarName } from '../core/spec/names.js';
import type { ControlObservation } from '../core/ports/run-controls.js';
import { runKeyOf } from '../core/ports/run-store.js';
import type { DagRunResource } from '../core/resources.js';
import { NodeStatus, nodeStatusLabel } from '../core/run/status.js';
import { checkApproval } from '../engine/services/run-control.js';
import { flag, flagList, UsageError, type Args } from './args.js';
import { dagNameOf, type CliContext } from './context.js';

/** How long the command waits to see the driver apply the decision. */
const APPLY_WAIT_MS = 5_000;

function inputsOf(args: Args): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const pair of flagList(args, 'input')) {
    const eq = pair.indexOf('=');
    const name = eq > 0 ? pair.slice(0, eq) : '';
    if (!isValidVarName(name)) throw new UsageError(`--input ${JSON.stringify(pair)}: expected NAME=value`);
    inputs[name] = pair.slice(eq + 1);
  }
  return inputs;
}

async function decide(ctx: CliContext, args: Args, obsOf: (step: string) => ControlObservation): Promise<number> {
  const dagName = await dagNameOf(ctx, args.positional[0]);
  const step = flag(args, 'step');
  if (!step) throw new UsageError('--step <name> is required: the hitl step to decide on');
  const run = await ctx.runs.get({ dagName, dagRunId: flag(args, 'run-id') ?? 'latest' });
  const obs = obsOf(step);
  checkApproval(run, step, obs);
  const key = runKeyOf(run);
  await ctx.deps.controls!.push(key, obs);
  const verb = obs.type === 'approve' ? 'approved' : 'rejected';
  if (await ctx.runs.isOrphaned(run)) {
    ctx.io.out(`step ${step} ${verb}; no process is driving dag-run ${key.dagRunId}: continue it with svc resume ${dagName} --run-id ${key.dagRunId}\n`);
    return 0;
  }
  const after = await applied(ctx, run, step);
  const status = after ? nodeStatusLabel(after) : 'waiting (the decision is recorded; the run\'s driver has not applied it yet)';
  ctx.io.out(`step ${step} ${verb}: ${status}\n`);
  return 0;
}

/** The step's status once the driver moved it off waiting, or undefined. */
async function applied(ctx: CliContext, run: DagRunResource, step: string): Promise<NodeStatus | undefined> {
  const deadline = Date.now() + APPLY_WAIT_MS;
  while (Date.now() < deadline) {
    const now = await ctx.runs.get(runKeyOf(run));
    const status = now.status.run.nodes.find((n) => n.name === step)?.status;
    if (status !== undefined && status !== NodeStatus.Waiting) return status;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

export const approveCommand = (ctx: CliContext, args: Args): Promise<number> =>
  decide(ctx, args, (node) => ({ type: 'approve', node, inputs: inputsOf(args) }));

export const rejectCommand = (ctx: CliContext, args: Args): Promise<number> => {
  const reason = flag(args, 'reason');
  return decide(ctx, args, (node) => ({ type: 'reject', node, ...(reason ? { reason } : {}) }));
};
