import type { ExecRef, ExecResult } from '../run/state.js';
import type { ContainerConfig, KubernetesBlock, StepDefinition } from '../spec/types.js';
import type { ExecIdentity } from '../naming.js';
import type { ToolBox } from './chat-tools.js';

/** Everything an executor needs; commands and env are already expanded by the engine. */
export interface ExecRequest {
  exec: ExecRef;
  step: StepDefinition;
  /** Expanded command lines (shell steps). */
  commands: string[];
  /**
   * The type's settings, expanded: the step's config with the DAG-level connection block of its type
   * (spec/step-config.ts effectiveConfig). Empty for shell steps.
   */
  config: Record<string, unknown>;
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
  /** Output is returned whole (not trimmed) in the result only, never stored in a log (a probe that reads a secret). */
  unlogged?: boolean;
  /** Labels the worker (Kubernetes: the Node) must have: the DAG's workerSelector with the step's over it. */
  workerSelector?: Record<string, string>;
  /** The DAG's kubernetes block with the step's over it (spec/kubernetes.ts mergeKubernetes); Pods only. */
  kubernetes?: KubernetesBlock;
  /** The DAG-level container the step runs inside (SPEC 2.5), when the step names no container of its own. */
  container?: ContainerConfig;
}

/** The outcome of an execution whose process was lost with the engine that started it. */
export const INTERRUPTED = 'interrupted: the engine stopped while the step ran';

export interface RunningExec {
  readonly result: Promise<ExecResult>;
  signal(signal: string): void;
}

/**
 * Runs executions of steps where steps run (local processes; Pods later), by identity. Each step type
 * has one (runtime/). One conformance suite (ports/conformance/launcher.ts) runs against every adapter.
 * - ensure is idempotent: an execution that has begun (in this process or one before it) is adopted and
 *   never started twice; one that has not is started. It reports the end through `result`. It resolves
 *   to undefined when the execution began but nothing of it is left to adopt (the caller then reports
 *   it interrupted). `fresh`: the caller knows nothing of this execution can have begun (the run's first
 *   driver starting a new execution), so the launcher need not look.
 * - recordsStarts: every start is recorded before it runs, so begun() can be trusted: the engine then
 *   adopts what began whatever the saved status says, and may start an execution before the state that
 *   asked for it is saved (a crash cannot run it twice). Launchers without records (hitl) say false.
 */
export interface Launcher {
  readonly recordsStarts: boolean;
  /** The step runs in the engine's process and can be given a chat step's tools (`ensure`'s `tools`). */
  readonly runsTools?: boolean;
  begun(req: ExecRequest): boolean | Promise<boolean>;
  ensure(req: ExecRequest, opts: { fresh: boolean; tools?: ToolBox }): Promise<RunningExec | undefined>;
  /**
   * Only a launcher whose commands run on this host as this user (local processes): the text of a file
   * as its commands would see it (undefined when it cannot be read), read without starting a process.
   * The engine's file probes (dotenv files, file secrets) use it; elsewhere they run a command.
   */
  readFile?(path: string, maxBytes: number): Promise<string | undefined>;
}

/** The outcome of an execution its step's timeoutSec ended (exit code 124, as timeout(1) reports). */
export const timedOutResult = (timeoutMs: number): ExecResult => ({ exitCode: 124, timedOut: true, error: `step timed out after ${timeoutMs / 1000}s` });

/** The error of a step whose captured output passed maxOutputSize. */
export const outputTooLarge = (maxOutputSize: number): string => `output exceeded maximum size limit (${maxOutputSize} bytes)`;
