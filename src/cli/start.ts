/** `svc start <file | DAG name> [--params "..."] [--run-id id]`: runs a DAG in the foreground. */
import { dirname, resolve } from 'node:path';
import { isRunSuccess, runStatusLabel } from '../core/run/status.js';
import { flag, UsageError, type Args } from './args.js';
import type { CliContext } from './context.js';
import { loadDagArg } from './dag-arg.js';
import { runKeyOf } from '../core/ports/run-store.js';

export async function startCommand(ctx: CliContext, args: Args): Promise<number> {
  const file = args.positional[0];
  if (!file) throw new UsageError('usage: svc start <file> [--params "..."] [--run-id <id>]');
  const dag = await loadDagArg(ctx, file);
  if (dag.errors.length > 0) {
    ctx.io.err(`${file} is invalid:\n${dag.errors.map((e) => `  - ${e}`).join('\n')}\n`);
    return 1;
  }
  const params = flag(args, 'params') ?? (args.positional.length > 1 ? args.positional.slice(1).join(' ') : undefined);
  const runId = flag(args, 'run-id');
  const run = await ctx.runs.create(dag, {
    ...(params !== undefined ? { params } : {}), ...(runId ? { dagRunId: runId } : {}),
    defaultWorkingDir: dirname(dag.sourceFile ?? resolve(file)),
  });
  const key = runKeyOf(run);
  ctx.io.out(`dag-run ${key.dagRunId} of ${key.dagName} started\n`);
  let interrupts = 0;
  const onSignal = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    ctx.io.err('stopping (press Ctrl-C again to leave the run behind)\n');
    void ctx.deps.store.requestStop(key);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const done = await ctx.runs.drive(key);
    const status = done.status.run.status;
    ctx.io.out(`dag-run ${key.dagRunId} ${runStatusLabel(status)}${done.status.run.error ? `: ${done.status.run.error}` : ''}\n`);
    return isRunSuccess(status) ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
