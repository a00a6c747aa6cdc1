import type { DagDefinition } from '../spec/types.js';
import type { RunKey } from './run-store.js';

/** Files of a run besides its resource: logs, outputs.json, exec records. */
export interface ArtifactStore {
  /** Paths for one execution's logs and records (creates nothing). */
  execPaths(key: RunKey, attemptId: string, node: string, attempt: number, item: number | undefined, merged: boolean): {
    stdout: string; stderr: string; recordFile: string; recordKey: string; scratchDir: string;
  };
  runLogPath(key: RunKey, attemptId: string): string;
  appendRunLog(key: RunKey, attemptId: string, line: string): Promise<void>;
  writeOutputs(key: RunKey, attemptId: string, body: unknown): Promise<void>;
  readOutputs(key: RunKey, attemptId: string): Promise<unknown | undefined>;
  /** Reads a text file (dotenv, secrets, logs); undefined when missing. At most maxBytes from the start. */
  readText(path: string, maxBytes?: number): Promise<string | undefined>;
  /** Removes runs of a DAG finished before the given time (histRetentionDays). */
  ensureDir(path: string): Promise<void>;
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
}

/** Runs a short shell command (preconditions, backquote substitution, repeat conditions). */
export interface CommandRunner {
  run(command: string, opts: { cwd: string; env: Record<string, string>; shell: string[]; timeoutMs?: number }): Promise<CommandResult>;
}

export interface SecretProvider {
  /** Resolves one secret value; throws an Error with a clear message when it cannot. */
  resolve(provider: string, key: string, options: Record<string, string>, ctx: { workingDir: string; dagDir?: string; env: Record<string, string> }): Promise<string>;
}

export interface LoadedDag {
  definition: DagDefinition;
  localDags: Record<string, DagDefinition>;
  sourceFile?: string;
  errors: string[];
}

/** Finds DAG definitions by name (sub-DAG calls to DAG files). */
export interface DagSource {
  find(name: string): Promise<LoadedDag | undefined>;
}

export interface EngineLogger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}
