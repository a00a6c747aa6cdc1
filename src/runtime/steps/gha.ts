/**
 * The `gha` step type (SPEC 2.6, experimental): one GitHub action per step, run by act
 * (github.com/nektos/act) in a container of the local engine. `command` is the action (`./path` in the
 * working directory, `owner/repo[/path]@ref`, or `docker://image`), `config.runner` the image of the
 * job container, `params` the action's inputs. Setup and act's command line: gha-setup.ts.
 *
 * act prints JSON lines (`--json`): what the action printed (`raw_output`) is the step's stdout, act's
 * progress lines its stderr. act does not keep an action's stdout and stderr apart, so both are in the
 * step's stdout. The step's exit code is act's; its error is act's last error line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { actArgs, actionInputs, findAct, findEngine, workflowText } from './gha-setup.js';
import { required, StepError, type StepIO, type StepOutcome, type StepRunner } from './runner.js';

/** After a stop, act has this long to remove its container before it is killed. */
const STOP_GRACE_MS = 10_000;

const GIT_NOISE = /^unable to get git (ref|revision)|not located inside a git repository$/;

interface ActLine { msg?: unknown; level?: unknown; raw_output?: unknown }

/** What act said on its two streams: lines to the step's logs, and its last error. */
class ActOutput {
  lastError: string | undefined;

  constructor(private readonly io: StepIO) {}

  line(text: string): void {
    let parsed: ActLine | undefined;
    try {
      parsed = text.startsWith('{') ? (JSON.parse(text) as ActLine) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed.msg !== 'string') {
      if (text.startsWith('Error: ')) this.lastError ??= text.slice('Error: '.length);
      this.io.err(`${text}\n`);
      return;
    }
    const msg = parsed.msg;
    if (parsed.raw_output === true) return this.io.out(msg.endsWith('\n') ? msg : `${msg}\n`);
    // act looks for the git ref and revision of the working directory once per expression it evaluates:
    // outside a git repository (or one without commits) that is dozens of identical lines, some at error
    // level, about nothing the step uses.
    if (GIT_NOISE.test(msg)) return;
    if (parsed.level === 'error' || parsed.level === 'fatal') this.lastError = msg;
    this.io.err(`${msg.trimEnd()}\n`);
  }

  follow(stream: Readable): Promise<void> {
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    lines.on('line', (l) => this.line(l));
    return new Promise((resolve) => lines.once('close', resolve));
  }
}

export const runGha: StepRunner = async ({ req, io, signal }) => {
  const action = req.commands[0]?.trim();
  if (!action) throw new StepError('gha step: command is required (the action: ./path, owner/repo@ref or docker://image)');
  const runner = required(req.config, 'runner', 'gha');
  const inputs = actionInputs(req.step.params, req.env);
  const act = findAct(req.env, process.env);
  const engine = findEngine(req.env, process.env);
  const dir = mkdtempSync(join(tmpdir(), 'svc-gha-'));
  try {
    const workflow = join(dir, 'workflow.yml');
    writeFileSync(workflow, workflowText(action, inputs, req.identity));
    const args = actArgs({ workflow, workingDir: req.workingDir, runner, none: join(dir, 'none') });
    return await runAct(act, args, { cwd: req.workingDir, env: { ...req.env, DOCKER_HOST: engine }, io, signal, action });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

interface ActRun { cwd: string; env: Record<string, string>; io: StepIO; signal: AbortSignal; action: string }

async function runAct(act: string, args: string[], o: ActRun): Promise<StepOutcome> {
  const child = spawn(act, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = new ActOutput(o.io);
  const read = Promise.all([output.follow(child.stdout), output.follow(child.stderr)]);
  // act cancels its job on SIGINT and removes the job container; a hung act is killed.
  const stop = (): void => {
    child.kill('SIGINT');
    setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS).unref();
  };
  o.signal.addEventListener('abort', stop, { once: true });
  try {
    const code = await new Promise<number>((resolve, reject) => {
      child.once('error', (e) => reject(new StepError(`gha step: cannot run ${act}: ${e.message}`)));
      child.once('close', (c, sig) => resolve(c ?? (sig ? 128 : 1)));
    });
    await read;
    if (code === 0) return { exitCode: 0 };
    return { exitCode: code, error: `gha step: ${o.action} failed: ${output.lastError ?? `act exited with status ${code}`}` };
  } finally {
    o.signal.removeEventListener('abort', stop);
  }
}
