/** `svc start <file | DAG name> [--params "..."] [--run-id id]`: runs a DAG in the foreground. */
import { dirname, resolve } from 'node:path';
import { isRunSuccess, NodeStatus, runStatusLabel } from '../core/run/status.js';
import { flag, UsageError, type Args } from './args.js';
import type { CliContext } from './context.js';
import { loadDagArg } from './dag-arg.js';
import { runKeyOf, type RunKey } from '../core/ports/run-store.js';
import { nodeLog } from '../engine/services/presenter.js';
import { checkRunConfig } from '../engine/services/start-policy.js';
import { LogFollower, pause } from './follow.js';

/** `--follow`: every step's stdout and stderr lines as they come, each prefixed with its step. */
function followSteps(ctx: CliContext, key: RunKey): { stop(): Promise<void> } {
  const follower = new LogFollower(ctx.deps.logs);
  let stopping = false;
  const poll = async (final: boolean): Promise<void> => {
    const run = await ctx.runs.get(key);
    for (const node of [...run.status.run.nodes, ...run.status.run.handlers]) {
      for (const stream of ['stdout', 'stderr'] as const) {
        const ref = nodeLog(run, node, stream);
        if (!ref || (stream === 'stderr' && ref.kind === 'exec' && ref.merged)) continue;
        // A step that is no longer running wrote its last line: no need to hold it back.
        for (const line of await follower.next(ref, final || node.status !== NodeStatus.Running)) (stream === 'stdout' ? ctx.io.out : ctx.io.err)(`${node.name} | ${line}\n`);
      }
    }
  };
  const loop = (async () => {
    while (!stopping) {
      await poll(false).catch(() => undefined);
      await pause();
    }
  })();
  return { stop: async () => { stopping = true; await loop; await poll(true).catch(() => undefined); } };
}

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
  checkRunConfig(dag.definition, { params, dagRunId: runId });
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
  const following = args.flags.follow ? followSteps(ctx, key) : undefined;
  try {
    const done = await ctx.runs.drive(key);
    await following?.stop();
    const status = done.status.run.status;
    ctx.io.out(`dag-run ${key.dagRunId} ${runStatusLabel(status)}${done.status.run.error ? `: ${done.status.run.error}` : ''}\n`);
    return isRunSuccess(status) ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
