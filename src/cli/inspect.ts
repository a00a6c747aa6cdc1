/** `svc status` and `svc outputs`: what a run did. */
import { runStatusLabel, nodeStatusLabel } from '../core/run/status.js';
import { runDetail } from '../engine/services/presenter.js';
import type { outputsBody } from '../engine/run/finish.js';
import { flag, type Args } from './args.js';
import { dagNameOf, type CliContext } from './context.js';
import { runKeyOf } from '../core/ports/run-store.js';

export async function statusCommand(ctx: CliContext, args: Args): Promise<number> {
  const dagName = await dagNameOf(ctx, args.positional[0]);
  const run = await ctx.runs.get({ dagName, dagRunId: flag(args, 'run-id') ?? 'latest' });
  if (args.flags.json) {
    ctx.io.out(`${JSON.stringify({ dagRun: runDetail(ctx.deps.logs, run) }, null, 2)}\n`);
    return 0;
  }
  const s = run.status.run;
  const orphan = await ctx.runs.isOrphaned(run)
    ? ` (orphaned: ${(await ctx.deps.ownership.holder(runKeyOf(run))) ?? 'its driver'} is gone; 'svc resume ${run.spec.dagName} --run-id ${run.spec.dagRunId}' takes it over)` : '';
  ctx.io.out(`${run.spec.dagName} ${run.spec.dagRunId}: ${runStatusLabel(s.status)}${s.error ? ` (${s.error})` : ''}${orphan}\n`);
  for (const n of [...s.nodes, ...s.handlers]) ctx.io.out(`  ${nodeStatusLabel(n.status).padEnd(20)} ${n.name}${n.error ? `: ${n.error}` : ''}\n`);
  return 0;
}

const EMPTY = { metadata: { dagName: '', dagRunId: '', attemptId: '', status: '', completedAt: '0001-01-01T00:00:00Z', params: '' }, outputs: {} };

export async function outputsCommand(ctx: CliContext, args: Args): Promise<number> {
  const dagName = await dagNameOf(ctx, args.positional[0]);
  const run = await ctx.runs.get({ dagName, dagRunId: flag(args, 'run-id') ?? 'latest' });
  const key = runKeyOf(run);
  const body = await ctx.deps.logs.readOutputs(key, run.status.attemptId);
  const hasOutputs = body && Object.keys((body as ReturnType<typeof outputsBody>).outputs).length > 0;
  ctx.io.out(`${JSON.stringify(hasOutputs ? body : EMPTY, null, 2)}\n`);
  return 0;
}
