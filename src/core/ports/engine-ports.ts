import type { DagDefinition } from '../spec/types.js';

export interface SecretContext {
  workingDir: string;
  dagDir?: string;
  /** The service's environment (the `env` provider). */
  env: Record<string, string>;
  /** The first of these files that can be read where the steps run (never logged); undefined when none. */
  read(paths: string[]): Promise<string | undefined>;
}

export interface SecretProvider {
  /** Resolves one secret value; throws an Error with a clear message when it cannot. */
  resolve(provider: string, key: string, options: Record<string, string>, ctx: SecretContext): Promise<string>;
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
