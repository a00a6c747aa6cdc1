/**
 * What a run computes once at start (SPEC 2.2 data, 2.4, 2.7): params, dotenv, the DAG env and the
 * secrets. Secrets live only in this in-memory context: never in the store, masked in every log.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import type { DagRunResource } from '../../core/resources.js';
import type { EnvEntry, StepDefinition } from '../../core/spec/types.js';
import type { ExecRef, RunState } from '../../core/run/state.js';
import { parseDotenv, dotenvOrder } from '../../core/vars/dotenv.js';
import { buildExpansionLookup, buildStepEnv, resolveDagEnv } from '../../core/vars/env.js';
import type { Lookup, RunCommand } from '../../core/vars/expand.js';
import { paramsToEnv, resolveParams, type ResolvedParams } from '../../core/vars/params.js';
import type { EngineDeps } from '../deps.js';
import { runLog } from '../../core/ports/log-store.js';
import { runKeyOf } from '../../core/ports/run-store.js';
import { shellFor } from './shell.js';

export interface RunContext {
  workingDir: string;
  dagDir: string;
  params: ResolvedParams;
  dotenv: EnvEntry[];
  dagEnv: EnvEntry[];
  secrets: EnvEntry[];
  secretValues: string[];
  runCommand: RunCommand;
  /** DAG_NAME, DAG_RUN_ID, DAG_RUN_LOG_FILE, SVC_PARAMS_JSON and the run's extra variables. */
  builtins: EnvEntry[];
  /** The environment of a step execution. */
  stepEnv(step: StepDefinition, state: RunState, exec: ExecRef, extra: EnvEntry[]): Promise<Record<string, string>>;
  /** `${VAR}` lookup for a step's fields given its environment (system env visible). */
  lookup(env: Record<string, string>): Lookup;
}

export const resolvePath = (base: string, p: string): string => (isAbsolute(p) ? p : resolve(base, p));

export async function prepareRunContext(run: DagRunResource, deps: EngineDeps): Promise<RunContext> {
  const def = run.spec.definition;
  const workingDir = run.spec.workingDir;
  const dagDir = run.spec.sourceFile ? dirname(run.spec.sourceFile) : workingDir;
  const params = resolveParams(def.params, run.spec.params || undefined);
  const shell = shellFor(undefined, def, deps.defaultShell).argv;
  const baseEnv = { ...deps.systemEnv };
  const runCommand: RunCommand = async (cmd) =>
    (await deps.commands.run(cmd, { cwd: workingDir, env: baseEnv, shell, timeoutMs: 60_000 })).stdout;
  const dotenv = await loadDotenv(deps, def.dotenv, workingDir, dagDir);
  const paramsEnv = paramsToEnv(params);
  const dagEnv = await resolveDagEnv({ systemEnv: deps.systemEnv, dotenv, dagEnv: def.env, params: paramsEnv, runCommand });
  const secrets: EnvEntry[] = [];
  for (const s of def.secrets) {
    const value = await deps.secrets.resolve(s.provider, s.key, s.options, { workingDir, dagDir, env: deps.systemEnv });
    secrets.push({ name: s.name, value });
  }
  const builtins: EnvEntry[] = [
    { name: 'DAG_NAME', value: run.spec.dagName },
    { name: 'DAG_RUN_ID', value: run.spec.dagRunId },
    { name: 'DAG_RUN_LOG_FILE', value: deps.logs.locate(runLog(runKeyOf(run), run.status.attemptId)) },
    { name: 'SVC_PARAMS_JSON', value: params.json },
    ...Object.entries(run.spec.extraEnv ?? {}).map(([name, value]) => ({ name, value })),
  ];
  const ctx: RunContext = {
    workingDir, dagDir, params, dotenv, dagEnv, secrets, secretValues: secrets.map((s) => s.value).filter(Boolean), runCommand, builtins,
    stepEnv: (step, state, _exec, extra) => buildStepEnv({
      systemEnv: deps.systemEnv, dotenv, dagEnv, dagEnvResolved: true, params: paramsEnv, runCommand,
      outputs: Object.entries(state.variables).map(([name, value]) => ({ name, value })),
      builtins: [...builtins, ...extra], secrets, stepEnv: step.env,
    }),
    lookup: (env) => buildExpansionLookup(deps.systemEnv, env),
  };
  return ctx;
}

async function loadDotenv(deps: EngineDeps, files: string[], workingDir: string, dagDir: string): Promise<EnvEntry[]> {
  const out: EnvEntry[] = [];
  for (const f of dotenvOrder(files)) {
    const candidates = [...new Set([resolvePath(workingDir, f), resolvePath(dagDir, f)])];
    let text: string | undefined;
    for (const path of candidates) if (text === undefined) text = await deps.files.read(path);
    if (text === undefined) continue;
    const parsed = parseDotenv(text);
    for (const e of parsed.errors) deps.log.warn('Skipped a bad dotenv line', { file: f, error: e });
    out.push(...parsed.entries);
  }
  return out;
}
