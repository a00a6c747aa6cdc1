/**
 * `svc enqueue <file | dag> [--params ...] [--run-id id] [--queue q]` and `svc dequeue <dag> --run-id id`
 * (SPEC 3.3): a run put in its queue, for the server's queue processor to start when the queue has
 * room; a queued run taken out (it ends aborted).
 */
import { dirname, resolve } from 'node:path';
import { LaunchService } from '../engine/services/launch-service.js';
import { dequeueRun } from '../engine/services/run-control.js';
import { flag, UsageError, type Args } from './args.js';
import { dagNameOf, type CliContext } from './context.js';
import { loadDagArg } from './dag-arg.js';

export async function enqueueCommand(ctx: CliContext, args: Args): Promise<number> {
  const file = args.positional[0]!;
  const dag = await loadDagArg(ctx, file);
  if (dag.errors.length > 0) {
    ctx.io.err(`${file} is invalid:\n${dag.errors.map((e) => `  - ${e}`).join('\n')}\n`);
    return 1;
  }
  const params = flag(args, 'params') ?? (args.positional.length > 1 ? args.positional.slice(1).join(' ') : undefined);
  const runId = flag(args, 'run-id');
  const queue = flag(args, 'queue');
  const launched = await new LaunchService(ctx.deps, ctx.runs, { drives: false }).enqueue(dag, {
    trigger: 'manual', defaultWorkingDir: dirname(dag.sourceFile ?? resolve(file)),
    ...(params !== undefined ? { params } : {}), ...(runId ? { dagRunId: runId } : {}), ...(queue ? { queue } : {}),
  });
  ctx.io.out(`dag-run ${launched.dagRunId} of ${launched.dagName} queued; a running svc server starts it when its queue has room\n`);
  return 0;
}

export async function dequeueCommand(ctx: CliContext, args: Args): Promise<number> {
  const dagName = await dagNameOf(ctx, args.positional[0]);
  const runId = flag(args, 'run-id');
  if (!runId) throw new UsageError('--run-id <id> is required: the queued run to take out');
  const run = await dequeueRun(ctx.deps, ctx.runs, { dagName, dagRunId: runId });
  ctx.io.out(`dag-run ${run.spec.dagRunId} of ${run.spec.dagName} dequeued\n`);
  return 0;
}
