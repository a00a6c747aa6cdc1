/**
 * `svc list` (the DAGs of the DAGs directory with their latest run), `svc runs <dag>` (a DAG's history,
 * newest first) and `svc logs <dag>` (a run's or a step's log). `--json` prints what the API answers:
 * { dags, errors } (GET /dags), { dagRuns } (GET /dag-runs) and a log page (GET .../log) with the run,
 * step and stream it is of.
 */
import { NotFoundError } from '../core/errors.js';
import { MAX_LOG_LINES, runLog, type LogRef } from '../core/ports/log-store.js';
import type { DagRunResource } from '../core/resources.js';
import { isRunTerminal, NodeStatus } from '../core/run/status.js';
import { runKeyOf } from '../core/ports/run-store.js';
import { stepOf } from '../core/run/state.js';
import { StoreDagCatalog } from '../engine/services/dag-catalog.js';
import { nodeLog, runSummary } from '../engine/services/presenter.js';
import { embeddedDagStore } from '../main/embedded.js';
import { flag, UsageError, type Args } from './args.js';
import { dagNameOf, type CliContext } from './context.js';
import { LogFollower, pause } from './follow.js';

/** A log not written yet, as GET .../log answers it. */
const EMPTY_PAGE = { content: '', lineCount: 0, totalLines: 0, hasMore: false, isEstimate: false };

/** A positive whole number flag, or its default. */
function count(args: Args, name: string, fallback: number, max: number): number {
  const v = flag(args, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--${name}: "${v}" must be a whole number from 1 to ${max}`);
  return n;
}

export async function listCommand(ctx: CliContext, args: Args): Promise<number> {
  const { entries, errors } = await new StoreDagCatalog(embeddedDagStore(ctx.config)).list();
  const rows = await Promise.all(entries.map(async (e) => {
    const [latest] = await ctx.deps.store.list({ dagName: e.loaded.definition.name, rootOnly: true, limit: 1 });
    return { fileName: e.fileName, name: e.loaded.definition.name, suspended: e.suspended, errors: e.loaded.errors, latest: latest ? runSummary(ctx.deps.logs, latest) : null };
  }));
  if (args.flags.json) {
    ctx.io.out(`${JSON.stringify({ dags: rows, errors }, null, 2)}\n`);
    return 0;
  }
  for (const r of rows) {
    const status = r.errors.length > 0 ? `invalid: ${r.errors[0]}` : r.latest ? `${r.latest.statusLabel} ${r.latest.startedAt || ''}`.trim() : 'never run';
    ctx.io.out(`${r.fileName.padEnd(30)} ${r.suspended ? 'suspended  ' : ''}${status}\n`);
  }
  for (const e of errors) ctx.io.err(`${e}\n`);
  if (rows.length === 0) ctx.io.out(`no DAGs in ${ctx.config.dagsDir} (SVC_DAGS_DIR)\n`);
  return 0;
}

export async function runsCommand(ctx: CliContext, args: Args): Promise<number> {
  const dagName = await dagNameOf(ctx, args.positional[0]);
  const limit = count(args, 'limit', 20, 10_000);
  const runs = (await ctx.deps.store.list({ dagName, rootOnly: true, limit }))
    .sort((a, b) => Date.parse(b.metadata.creationTimestamp) - Date.parse(a.metadata.creationTimestamp))
    .map((r) => runSummary(ctx.deps.logs, r));
  if (args.flags.json) {
    ctx.io.out(`${JSON.stringify({ dagRuns: runs }, null, 2)}\n`);
    return 0;
  }
  if (runs.length === 0) {
    ctx.io.out(`no runs of ${dagName}\n`);
    return 0;
  }
  for (const r of runs) ctx.io.out(`${r.dagRunId.padEnd(30)} ${r.statusLabel.padEnd(20)} ${r.startedAt || '-'}  ${r.finishedAt || '-'}\n`);
  return 0;
}

export async function logsCommand(ctx: CliContext, args: Args): Promise<number> {
  const dagName = await dagNameOf(ctx, args.positional[0]);
  const run = await ctx.runs.get({ dagName, dagRunId: flag(args, 'run-id') ?? 'latest' });
  const tail = flag(args, 'tail') === undefined ? undefined : count(args, 'tail', 1, MAX_LOG_LINES);
  if (args.flags.stderr && flag(args, 'step') === undefined) throw new UsageError('svc logs: --stderr needs --step (the run log is one stream)');
  if (args.flags.follow && args.flags.json) throw new UsageError('svc logs: --json prints the log as it is now; it does not go with --follow');
  if (args.flags.follow) return followLog(ctx, run, args);
  const ref = logRefOf(run, args);
  if (!ref) {
    ctx.io.err(`step ${flag(args, 'step')} has not run in dag-run ${run.spec.dagRunId}\n`);
    return 1;
  }
  const page = await ctx.deps.logs.page(ref, { limit: MAX_LOG_LINES, ...(tail ? { tail } : {}) });
  if (args.flags.json) {
    const stepName = flag(args, 'step');
    const which = { dagName: run.spec.dagName, dagRunId: run.spec.dagRunId, attemptId: run.status.attemptId, step: stepName ?? null, stream: stepName === undefined ? 'run' : args.flags.stderr ? 'stderr' : 'stdout' };
    ctx.io.out(`${JSON.stringify({ ...which, ...(page ?? EMPTY_PAGE) }, null, 2)}\n`);
    return 0;
  }
  if (page?.content) ctx.io.out(page.content.endsWith('\n') ? page.content : `${page.content}\n`);
  return 0;
}

/** The run's log, or the asked step's stdout (stderr); undefined while that step has not run. */
function logRefOf(run: DagRunResource, args: Args): LogRef | undefined {
  const stepName = flag(args, 'step');
  if (stepName === undefined) return runLog(runKeyOf(run), run.status.attemptId);
  const s = run.status.run;
  const node = s.nodes.find((n) => n.name === stepName) ?? s.handlers.find((n) => n.name === stepName);
  if (!node || !stepOf(run.spec.definition, node)) throw new NotFoundError(`step "${stepName}" not found in dag-run ${run.spec.dagRunId} of DAG ${run.spec.dagName}`);
  return nodeLog(run, node, args.flags.stderr ? 'stderr' : 'stdout');
}

/** Prints the log as it grows until the run has ended (a step's: until it has run). */
async function followLog(ctx: CliContext, first: DagRunResource, args: Args): Promise<number> {
  const follower = new LogFollower(ctx.deps.logs);
  for (let run = first; ; run = await ctx.runs.get(runKeyOf(run))) {
    const ended = isRunTerminal(run.status.run.status);
    const ref = logRefOf(run, args);
    const stepName = flag(args, 'step');
    const stepDone = stepName !== undefined && run.status.run.nodes.some((n) => n.name === stepName && n.status !== NodeStatus.Running && n.status !== NodeStatus.NotStarted);
    if (ref) for (const line of await follower.next(ref, ended || stepDone)) ctx.io.out(`${line}\n`);
    if (ended || stepDone) return 0;
    await pause();
  }
}
