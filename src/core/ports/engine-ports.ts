import type { DagDefinition } from '../spec/types.js';

/**
 * The user's own files a run reads at start (dotenv). undefined when missing. (To move behind the
 * launcher, where the steps run: see the "Identities, not paths" issue.)
 */
export interface UserFiles {
  read(path: string): Promise<string | undefined>;
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
  /** Per-execution detail (SVC_LOG_LEVEL=debug); a logger that keeps none may leave it out. */
  debug?(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}
