/** What every CLI command needs: configuration, engine deps, and resolving a DAG argument. */
import { existsSync } from 'node:fs';
import { loadConfig, type Config } from '../config/config.js';
import type { EngineDeps } from '../engine/deps.js';
import { RunService } from '../engine/services/run-service.js';
import { embeddedDeps, loadDagFile } from '../main/embedded.js';
import { consoleLogger } from '../observability/console-logger.js';
import type { DagRunResource } from '../core/resources.js';
import { UsageError } from './args.js';

export interface CliIO {
  out: (s: string) => void;
  err: (s: string) => void;
}

export interface CliContext {
  config: Readonly<Config>;
  deps: EngineDeps;
  runs: RunService;
  io: CliIO;
}

/** `onState`: the progress display of a command that runs steps in this process (start, retry, resume). */
export function cliContext(io: CliIO, onState?: (run: DagRunResource) => void): CliContext {
  const config = loadConfig();
  const deps = embeddedDeps(config, consoleLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, io.err), onState ? { onState } : {});
  return { config, deps, runs: new RunService(deps), io };
}

/** A DAG argument is a file path (when it exists) or a DAG name. */
export async function dagNameOf(ctx: CliContext, arg: string | undefined): Promise<string> {
  if (!arg) throw new UsageError('missing DAG name or file');
  if (existsSync(arg) && /\.ya?ml$/.test(arg)) return (await loadDagFile(arg)).definition.name;
  const found = await ctx.deps.dags.find(arg);
  return found?.definition.name ?? arg;
}
