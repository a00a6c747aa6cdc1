/**
 * What a run computes once at start (SPEC 2.2 data, 2.4, 2.7): params, dotenv, the DAG env and the
 * secrets. Secrets live only in this in-memory context: never in the store, masked in every log.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import type { DagRunResource } from '../../core/resources.js';
import type { EnvEntry } from '../../core/spec/types.js';
import type { RunState } from '../../core/run/state.js';
import { parseDotenv, dotenvOrder } from '../../core/vars/dotenv.js';
import { buildExpansionLookup, buildStepEnv, filterSystemEnv, resolveDagEnv } from '../../core/vars/env.js';
import type { Lookup, RunCommand } from '../../core/vars/expand.js';
import { evaluateParams, paramsToEnv, startParamsProblem, type ResolvedParams } from '../../core/vars/params.js';
import { paramNameProblem } from '../../core/spec/param-names.js';
import type { EngineDeps } from '../deps.js';
import { runLog } from '../../core/ports/log-store.js';
import { runKeyOf } from '../../core/ports/run-store.js';
import { shellFor } from './shell.js';
import { visibleVariables } from '../../core/run/visible.js';
import { stepRefs } from './step-refs.js';
import { callerSecrets, resolveSecrets } from './secret-refs.js';
import { dereferenceSecrets } from '../../core/secret-values.js';
import { Probes, type ProbeKind, type ProbeOwner } from './probes.js';

export interface RunContext {
  workingDir: string;
  dagDir: string;
  params: ResolvedParams;
  dotenv: EnvEntry[];
  dagEnv: EnvEntry[];
  secrets: EnvEntry[];
  /** The values masked in this run's output: its secrets' and those its caller passed by reference. */
  secretValues: string[];
  /**
   * The secrets a sub-DAG run it calls gets (its own and those passed to it): by reference in the child's
   * params (ADR 0028), by value only through memory.
   */
  passedSecrets: EnvEntry[];
  /** Runs the engine's own questions (conditions, backquotes) where the steps run. */
  probes: Probes;
  /** The shell the run's own probes use (the DAG's, else the service default). */
  shell: string[];
  /** Backquote substitution on behalf of a step's execution, or of the run itself. */
  runCommand(owner: ProbeOwner | undefined, kind?: ProbeKind): RunCommand;
  /** DAG_NAME, DAG_RUN_ID, DAG_RUN_LOG_FILE, SVC_PARAMS_JSON and the run's extra variables. */
  builtins: EnvEntry[];
  /** The environment of a step execution; with no owner, of the run's own probes (DAG preconditions). */
  stepEnv(owner: ProbeOwner | undefined, state: RunState, extra: EnvEntry[]): Promise<Record<string, string>>;
  /** `${VAR}` lookup for a step's fields given its environment (system env visible). */
  lookup(env: Record<string, string>): Lookup;
  /**
   * The system environment of a sub-DAG run this run calls: this run's, with its built-ins, dotenv, DAG
   * env and named params over it (the reference starts a child with its parent's environment). In memory
   * only: it may hold values computed by backquotes.
   */
  childEnv: Record<string, string>;
}

export const resolvePath = (base: string, p: string): string => (isAbsolute(p) ? p : resolve(base, p));

/**
 * `systemEnv`: the service's environment for a root run; for a sub-DAG run, its parent's `childEnv`
 * (so the child's params, env and conditions see the parent's params and env; its steps get only what
 * SPEC 2.7 passes of it, as for any system environment).
 */
export async function prepareRunContext(run: DagRunResource, deps: EngineDeps, systemEnv: Record<string, string> = deps.systemEnv, passed?: EnvEntry[]): Promise<RunContext> {
  const def = run.spec.definition;
  // Also checked when the run is created; here for runs stored before or written past the API (a DagRun object).
  const badName = startParamsProblem(run.spec.params) ?? def.params.map((d) => (d.name === undefined ? undefined : paramNameProblem(d.name))).find(Boolean);
  if (badName) throw new Error(badName);
  const workingDir = run.spec.workingDir;
  const dagDir = run.spec.sourceFile ? dirname(run.spec.sourceFile) : workingDir;
  const shell = shellFor(undefined, def, deps.defaultShell).argv;
  const probes = new Probes(deps, run);
  const base = { cwd: workingDir, env: { ...systemEnv }, shell };
  // Backquote output becomes values (a token from a vault, say): returned to the engine, never logged.
  // A step's backquotes (in its env) run when the step starts: with what the step gets of the system environment.
  const stepBase = { ...base, env: filterSystemEnv(systemEnv) };
  const runCommand = (owner: ProbeOwner | undefined, kind?: ProbeKind): RunCommand => probes.runCommand({ ...(owner ? stepBase : base), owner, unlogged: true }, kind);
  const dotenv = await loadDotenv(deps, probes, def.dotenv, { ...base, dagDir });
  const dotenvValues = new Map(dotenv.map((e) => [e.name, e.value]));
  // A sub-DAG run's params name its caller's secrets (`${NAME}`): the values come from memory, or read again.
  const inherited = passed ?? await callerSecrets(deps, run);
  const params = await evaluateParams(def.params, dereferenceSecrets(run.spec.params, inherited) || undefined, (n) => dotenvValues.get(n) ?? systemEnv[n], runCommand(undefined));
  const paramsEnv = paramsToEnv(params);
  const dagEnv = await resolveDagEnv({ systemEnv, dotenv, dagEnv: def.env, params: paramsEnv, runCommand: runCommand(undefined) });
  const secrets = await resolveSecrets(deps, def.secrets, { workingDir, dagDir, env: systemEnv, read: (paths) => probes.readFirst(paths, { ...base, kind: 'secret', unlogged: true }) });
  const builtins: EnvEntry[] = [
    { name: 'DAG_NAME', value: run.spec.dagName },
    { name: 'DAG_RUN_ID', value: run.spec.dagRunId },
    { name: 'DAG_RUN_LOG_FILE', value: deps.logs.locate(runLog(runKeyOf(run), run.status.attemptId)) },
    { name: 'SVC_PARAMS_JSON', value: params.json },
    ...Object.entries(run.spec.extraEnv ?? {}).map(([name, value]) => ({ name, value })),
  ];
  const ctx: RunContext = {
    workingDir, dagDir, params, dotenv, dagEnv, secrets, secretValues: [...secrets, ...inherited].map((s) => s.value).filter(Boolean),
    passedSecrets: [...secrets, ...inherited.filter((i) => !secrets.some((s) => s.name === i.name))], probes, shell, runCommand, builtins,
    stepEnv: (owner, state, extra) => buildStepEnv({
      systemEnv, dotenv, dagEnv, dagEnvResolved: true, params: paramsEnv, runCommand: runCommand(owner),
      outputs: Object.entries(owner ? visibleVariables(def, state, owner.exec.node) : state.variables).map(([name, value]) => ({ name, value })),
      builtins: [...builtins, ...extra], secrets, stepEnv: owner?.step.env ?? [], refs: stepRefs(deps, run, state),
    }),
    lookup: (env) => buildExpansionLookup(env),
    childEnv: childEnvOf(systemEnv, [...builtins, ...dotenv.filter((e) => systemEnv[e.name] === undefined), ...dagEnv, ...paramsEnv]),
  };
  return ctx;
}

/** The system environment with `layers` over it, lowest first; positional params ($1) are not variables. */
function childEnvOf(systemEnv: Record<string, string>, layers: EnvEntry[]): Record<string, string> {
  const env = { ...systemEnv };
  for (const e of layers) if (!/^\d+$/.test(e.name)) env[e.name] = e.value;
  return env;
}

/**
 * Dotenv files are read where the steps run (Probes.readEach: every run has at least `.env`), each from
 * the working directory, else the DAG's. A missing file reads as empty, which loads the same as one
 * with no entries.
 */
async function loadDotenv(deps: EngineDeps, probes: Probes, files: string[], at: { cwd: string; dagDir: string; env: Record<string, string> }): Promise<EnvEntry[]> {
  const order = dotenvOrder(files);
  // Only the implicit `.env`, where reading it costs a Pod per run (deps.implicitDotenv false): not read.
  if (order.length === 0 || (deps.implicitDotenv === false && order.length === 1 && order[0] === '.env')) return [];
  const groups = order.map((f) => [...new Set([resolvePath(at.cwd, f), resolvePath(at.dagDir, f)])]);
  const texts = await probes.readEach(groups, { kind: 'dotenv', cwd: at.cwd, env: at.env }).catch((e: unknown) => {
    throw new Error(`cannot read the dotenv files: ${e instanceof Error ? e.message : String(e)}`);
  });
  const out: EnvEntry[] = [];
  order.forEach((f, i) => {
    const parsed = parseDotenv(texts[i]!);
    for (const e of parsed.errors) deps.log.warn('Skipped a bad dotenv line', { file: f, error: e });
    out.push(...parsed.entries);
  });
  return out;
}
