import type { ExecRef, ExecResult } from '../run/state.js';
import type { StepDefinition } from '../spec/types.js';
import type { ExecIdentity } from '../naming.js';

/** Everything an executor needs; commands and env are already expanded by the engine. */
export interface ExecRequest {
  exec: ExecRef;
  step: StepDefinition;
  /** Expanded command lines (shell steps). */
  commands: string[];
  /** Expanded script text, when the step has one. */
  script?: string;
  /** Shell argv prefix, e.g. ['/bin/sh', '-e']; empty array means run the command without a shell. */
  shell: string[];
  /** True when the shell came from the step or DAG (a shebang is then not honoured). */
  shellExplicit: boolean;
  env: Record<string, string>;
  workingDir: string;
  /** Who this execution is: names its logs (LogStore execLog) and, where it has one, its process or Pod. */
  identity: ExecIdentity;
  /** logOutput `merged`: stdout and stderr go to one log. */
  merged: boolean;
  /** Extra copies of the output requested by the step's `stdout:` / `stderr:` fields (the user's paths). */
  copies: { stdout?: string; stderr?: string };
  /** Values to mask as ******* in logs and captured output. */
  secrets: string[];
  maxOutputSize: number;
  /** 0 = none. */
  timeoutMs: number;
  /** Capture stdout for `output:`. */
  capture: boolean;
}

/** The outcome of an execution whose process was lost with the engine that started it. */
export const INTERRUPTED = 'interrupted: the engine stopped while the step ran';

export interface RunningExec {
  readonly result: Promise<ExecResult>;
  signal(signal: string): void;
}

/** Runs one execution of a step of a given type. Each step type has one (runtime/). */
export interface StepExecutor {
  start(req: ExecRequest): RunningExec;
  /**
   * For executors that record every execution before its command runs (the process launcher's exec records): whether this
   * one has begun. The engine then adopts it instead of starting it, whatever the saved status says, and
   * may start executions before the state that asked for them is saved (a crash cannot run one twice).
   */
  started?(req: ExecRequest): boolean;
  /**
   * Re-attaches to an execution started by a previous process (after a crash). Returns undefined
   * when nothing of it is left to adopt (the caller then treats it as interrupted).
   */
  adopt?(req: ExecRequest): Promise<RunningExec | undefined>;
}
