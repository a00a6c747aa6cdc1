/**
 * Step types that run inside the engine's process (embedded) or `svc run-step` (a Pod): http, jq, ssh,
 * s3, mail, redis, archive, postgres, sqlite. Each is a StepRunner; in-process.ts makes a Launcher of it.
 */
import type { ToolBox } from '../../core/ports/chat-tools.js';
import type { ExecRequest } from '../../core/ports/executor.js';

/** Where a runner writes what the step prints: the step's stdout and stderr logs (secrets masked there). */
export interface StepIO {
  out(text: string): void;
  err(text: string): void;
}

export interface StepRun {
  /** Commands, script and config already expanded; env and workingDir as for a shell step. */
  req: ExecRequest;
  io: StepIO;
  /** Aborted when the step is stopped or its timeout passes: give up at once, close what is open. */
  signal: AbortSignal;
  /** A chat step's tools (llm.tools), when the engine runs it in its own process (ports/chat-tools.ts). */
  tools?: ToolBox;
}

/** How the step ended: exit code 0 succeeds; a failure says why in `error` (shown as the step's error). */
export interface StepOutcome {
  exitCode: number;
  error?: string;
}

export type StepRunner = (run: StepRun) => Promise<StepOutcome>;

/** A failure the user must fix (bad config, a refused request): thrown by runners, reported as the step's error. */
export class StepError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

/** The config value of a field as a string, or undefined (numbers and booleans as text). */
export function text(config: Record<string, unknown>, field: string): string | undefined {
  const v = config[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new StepError(`config.${field} must be a string`);
}

/** A required config string: a clear error naming the field when it is missing or empty. */
export function required(config: Record<string, unknown>, field: string, type: string): string {
  const v = text(config, field);
  if (v === undefined || v.trim() === '') throw new StepError(`${type} step: config.${field} is required`);
  return v;
}
