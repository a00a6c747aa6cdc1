/** The `svc` command line. */
import { DomainError } from '../core/errors.js';
import { commandHelp, parseCommandArgs, suggestion, UsageError, type Args } from './args.js';
import { COMMAND_SPECS, usage } from './commands.js';
import { cliContext, type CliContext, type CliIO } from './context.js';
import { outputsCommand, statusCommand } from './inspect.js';
import { listCommand, logsCommand, runsCommand } from './history.js';
import { progressPrinter } from './progress.js';
import { resumeCommand, retryCommand, stopCommand } from './control.js';
import { startCommand } from './start.js';
import { ConfigError, SVC_VERSION } from '../config/config.js';
import { dryCommand, validateCommand } from './validate.js';
import { kubeCommand } from './kube.js';
import { approveCommand, rejectCommand } from './approval.js';
import { dequeueCommand, enqueueCommand } from './queue.js';
import { configPathHints, systemErrorSentence } from './system-error.js';


type Command = (ctx: CliContext, args: Args) => Promise<number>;
/** `server` pulls in express and the API: loaded only when asked for, so short commands start fast. */
const serverCommand: Command = async (ctx, args) => (await import('./server.js')).serverCommand(ctx, args);

const operatorCommand: Command = async (ctx, args) => (await import('./operator.js')).operatorCommand(ctx, args);

/** `run-step` loads the step types' runners: only in a step Pod. */
const runStepCommand: Command = async (ctx) => (await import('../main/run-step.js')).runStepInPod(ctx.io);

const COMMANDS: Record<string, Command> = { 'run-step': runStepCommand, server: serverCommand, operator: operatorCommand, start: startCommand, status: statusCommand, list: listCommand, runs: runsCommand, logs: logsCommand, outputs: outputsCommand, stop: stopCommand, retry: retryCommand, resume: resumeCommand, validate: validateCommand, dry: dryCommand, kube: kubeCommand,
  enqueue: enqueueCommand, dequeue: dequeueCommand, approve: approveCommand, reject: rejectCommand };

/**
 * The process's own streams. A reader that goes away (`svc status ... | head`) ends the output, not the
 * process: a foreground run carries on without its progress display.
 */
function processIO(): CliIO {
  let gone = false;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    gone = true;
  });
  return { out: (s) => { if (!gone) process.stdout.write(s); }, err: (s) => process.stderr.write(s) };
}

/** The command, or the exit code of what was asked instead (help, version, a usage error). */
function dispatch(argv: string[], io: CliIO): { name: string; cmd: Command; args: Args } | number {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') return io.out(`svc ${SVC_VERSION}\n`), 0;
  if (name === 'help' || name === '--help' || name === '-h') {
    const spec = rest[0] ? COMMAND_SPECS[rest[0]] : undefined;
    return io.out(spec ? commandHelp(rest[0]!, spec) : usage()), 0;
  }
  const cmd = name ? COMMANDS[name] : undefined;
  if (!name || !cmd) {
    io.err(`${name ? `svc: unknown command "${name}"${suggestion(name, Object.keys(COMMANDS))}\n` : ''}${usage()}`);
    return 2;
  }
  const spec = COMMAND_SPECS[name]!;
  const args = parseCommandArgs(name, spec, rest);
  if (args.help) return io.out(commandHelp(name, spec)), 0;
  return { name, cmd, args };
}

/**
 * Errors are sentences on stderr: usage and configuration (exit 2), domain errors (exit 1), and Node system
 * errors that reached the top (exit 2: the machine's set-up, not the DAG). Anything else goes up to
 * bin/svc.js, which prints its message.
 */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  let ctx: CliContext | undefined;
  try {
    return await dispatchAndRun(argv, io, (c) => { ctx = c; });
  } catch (e) {
    if (e instanceof UsageError) { io.err(`${e.message}\n`); return 2; }
    if (e instanceof ConfigError) { io.err(`configuration error: ${e.message}\n`); return 2; }
    if (e instanceof DomainError) { io.err(`error (${e.code}): ${e.message}\n`); return 1; }
    const sentence = systemErrorSentence(e, ctx ? configPathHints(ctx.config) : []);
    if (sentence) { io.err(`svc ${argv[0]}: ${sentence}\n`); return 2; }
    throw e;
  }
}

async function dispatchAndRun(argv: string[], io: CliIO, made: (ctx: CliContext) => void): Promise<number> {
  const asked = dispatch(argv, io);
  if (typeof asked === 'number') return asked;
  const { name, cmd, args } = asked;
  const progress = name === 'start' || name === 'retry' || name === 'resume' ? progressPrinter(io.out) : undefined;
  const ctx = cliContext(io, progress);
  made(ctx);
  return await cmd(ctx, args);
}
