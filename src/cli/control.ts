/** `svc stop` and `svc retry`. */
import { isRunSuccess, runStatusLabel } from '../core/run/status.js';
import { flag, UsageError, type Args } from './args.js';
import { dagNameOf, type CliContext } from './context.js';
import { runKeyOf } from '../core/ports/run-store.js';

export async function stopCommand(ctx: CliContext, args: Args): Promise<number> {
  const dagName = await dagNameOf(ctx, args.positional[0]);
  const run = await ctx.runs.get({ dagName, dagRunId: flag(args, 'run-id') ?? 'latest' });
  await ctx.runs.stop(runKeyOf(run));
  ctx.io.out(`stop requested for dag-run ${run.spec.dagRunId}\n`);
  return 0;
}

export async function retryCommand(ctx: CliContext, args: Args): Promise<number> {
  const dagName = await dagNameOf(ctx, args.positional[0]);
  const runId = flag(args, 'run-id');
  if (!runId) throw new UsageError('usage: svc retry <dag> --run-id <id>');
  const run = await ctx.runs.retry({ dagName, dagRunId: runId });
  ctx.io.out(`retrying dag-run ${run.spec.dagRunId} (attempt ${run.status.attemptId})\n`);
  const done = await ctx.runs.drive(runKeyOf(run));
  ctx.io.out(`dag-run ${runId} ${runStatusLabel(done.status.run.status)}\n`);
  return isRunSuccess(done.status.run.status) ? 0 : 1;
}

export async function resumeCommand(ctx: CliContext, args: Args): Promise<number> {
  const dagName = await dagNameOf(ctx, args.positional[0]);
  const run = await ctx.runs.get({ dagName, dagRunId: flag(args, 'run-id') ?? 'latest' });
  ctx.io.out(`resuming dag-run ${run.spec.dagRunId}\n`);
  const done = await ctx.runs.resume(runKeyOf(run));
  ctx.io.out(`dag-run ${run.spec.dagRunId} ${runStatusLabel(done.status.run.status)}\n`);
  return isRunSuccess(done.status.run.status) ? 0 : 1;
}
