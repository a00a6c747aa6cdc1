/**
 * `svc run-step`: runs one step of an svc-code type (http, jq, ssh, ...) inside its step Pod, under the
 * entry binary (core/run-step.ts). Output goes to this process's stdout and stderr (the entry masks and
 * stores them); a stop signal the entry forwards aborts the step; the exit code is the step's, and a
 * failure's message is left in the file the entry names, for the step's error.
 */
import { writeFileSync } from 'node:fs';
import type { ExecRequest } from '../core/ports/executor.js';
import { decodeMasks, parseRunStepRequest, STEP_ERROR_ENV, STEP_MASK_ENV, STEP_REQUEST_ENV, type RunStepRequest } from '../core/run-step.js';
import { startInProcess } from '../runtime/steps/in-process.js';
import { STEP_RUNNERS } from '../runtime/steps/index.js';

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/** Runs the step the environment's request names; resolves to the exit code. */
export async function runStepInPod(io: { out(text: string): void; err(text: string): void }): Promise<number> {
  const parsed = parseRunStepRequest(process.env[STEP_REQUEST_ENV]);
  if (typeof parsed === 'string') {
    io.err(`svc run-step: ${parsed}\n`);
    return 2;
  }
  const runner = STEP_RUNNERS[parsed.step.type];
  if (!runner) {
    io.err(`svc run-step: this build of svc has no ${parsed.step.type} steps\n`);
    return 2;
  }
  const running = startInProcess(runner, execRequest(parsed), async (stream, text) => (stream === 'stdout' ? io.out(text) : io.err(text)));
  for (const s of STOP_SIGNALS) process.once(s, () => running.signal(s));
  const result = await running.result;
  if (result.exitCode === 0) return 0;
  const error = result.error ?? `exit status ${result.exitCode}`;
  io.err(`${error}\n`);
  const file = process.env[STEP_ERROR_ENV];
  if (file) writeFileSync(file, error);
  return result.exitCode;
}

/**
 * The entry enforces the timeout, masks secrets and stores the logs: none of that is done twice here. The
 * secret values are still given to the runner, which masks them in what it sends (chat).
 */
function execRequest(r: RunStepRequest): ExecRequest {
  const ours = new Set([STEP_REQUEST_ENV, STEP_ERROR_ENV, STEP_MASK_ENV]);
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !ours.has(e[0])));
  const secrets = decodeMasks(process.env[STEP_MASK_ENV]);
  return {
    exec: { node: r.step.name, attempt: 0 }, step: r.step, commands: r.commands, ...(r.script !== undefined ? { script: r.script } : {}), config: r.config,
    shell: [], shellExplicit: false, env, workingDir: process.cwd(),
    identity: { dagName: '', dagRunId: '', attemptId: '', node: r.step.name, attempt: 0 },
    merged: false, copies: {}, secrets, maxOutputSize: Number.MAX_SAFE_INTEGER, timeoutMs: 0, capture: false,
  };
}
