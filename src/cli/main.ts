/** The `svc` command line. */
import { DomainError } from '../core/errors.js';
import { parseArgs, UsageError, type Args } from './args.js';
import { cliContext, type CliContext, type CliIO } from './context.js';
import { outputsCommand, statusCommand } from './inspect.js';
import { progressPrinter } from './progress.js';
import { resumeCommand, retryCommand, stopCommand } from './control.js';
import { startCommand } from './start.js';
import { ConfigError } from '../config/config.js';
import { dryCommand, validateCommand } from './validate.js';
import { kubeCommand } from './kube.js';

const USAGE = `usage: svc <command> [options]
  server                                         the service: REST API, scheduler, queues (SVC_HOST, SVC_PORT)
  start <file> [--params "..."] [--run-id <id>]   run a DAG in the foreground
  status <dag> [--run-id <id>] [--json]          show a run (latest by default)
  outputs <dag> [--run-id <id>]                  print a run's outputs.json
  stop <dag> [--run-id <id>]                     stop a running run
  retry <dag> --run-id <id>                      retry a finished run (failed steps and downstream)
  resume <dag> [--run-id <id>]                   take over a run whose process died (kill -9, crash)
  validate <file>                                check a DAG file, every problem listed
  dry <file>                                     show the plan without executing
  kube manifest <file> [--namespace <ns>]        print the Dag manifest of a DAG file (kubectl apply, GitOps)
  operator [--namespace <ns>]                    run DagRuns as Pods (Kubernetes; SVC_KUBECONFIG, SVC_STEP_IMAGE, ...)
environment: SVC_DATA_DIR (state, default ~/.local/share/svc), SVC_DAGS_DIR (DAG files, default $SVC_DATA_DIR/dags)
`;

type Command = (ctx: CliContext, args: Args) => Promise<number>;
/** `server` pulls in express and the API: loaded only when asked for, so short commands start fast. */
const serverCommand: Command = async (ctx, args) => (await import('./server.js')).serverCommand(ctx, args);

const operatorCommand: Command = async (ctx, args) => (await import('./operator.js')).operatorCommand(ctx, args);

const COMMANDS: Record<string, Command> = { server: serverCommand, operator: operatorCommand, start: startCommand, status: statusCommand, outputs: outputsCommand, stop: stopCommand, retry: retryCommand, resume: resumeCommand, validate: validateCommand, dry: dryCommand, kube: kubeCommand };

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

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv;
  const cmd = name ? COMMANDS[name] : undefined;
  if (!cmd) {
    (name && name !== 'help' && name !== '--help' ? io.err : io.out)(USAGE);
    return name && name !== 'help' && name !== '--help' ? 2 : 0;
  }
  const progress = name === 'start' || name === 'retry' || name === 'resume' ? progressPrinter(io.out) : undefined;
  let ctx;
  try {
    ctx = cliContext(io, progress);
  } catch (e) {
    if (e instanceof ConfigError) { io.err(`configuration error: ${e.message}\n`); return 2; }
    throw e;
  }
  try {
    return await cmd(ctx, parseArgs(rest, ['json']));
  } catch (e) {
    if (e instanceof UsageError) { io.err(`${e.message}\n`); return 2; }
    if (e instanceof ConfigError) { io.err(`configuration error: ${e.message}\n`); return 2; }
    if (e instanceof DomainError) { io.err(`error (${e.code}): ${e.message}\n`); return 1; }
    throw e;
  }
}
