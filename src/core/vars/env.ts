/**
 * The environment of a step (SPEC 2.2 env/dotenv, 2.4, 2.7), built from layers; a later layer wins.
 *
 *  1. Filtered system environment: "Only PATH, HOME, LANG, TZ, SHELL and variables prefixed SVC_, LC_, DAG_ are
 *     passed from the system environment to step processes" (2.7).
 *  2. DAG `env`, evaluated in order; each value may use earlier entries, dotenv values, params and the full system
 *     environment ("service system variables are available for ${VAR} expansion at load time", 2.7).
 *  3. dotenv values: "Loaded at start, before any step" and Dagu's "dotenv beats env:" (reference 0.3), but
 *     "system environment variables take precedence over file values" (2.2): a key that is set in the system
 *     environment gets the system value. Naming it in a dotenv file still passes it to the step ("unless named in
 *     `env` or loaded from dotenv", 2.7).
 *  4. Params (named, and positional as `1`, `2`, ...): run input beats anything written in the DAG file.
 *  5. Captured outputs of upstream steps: run-time values of the same tier as params in Dagu ("step env >
 *     outputs/params > secrets > DAG env"), placed above params because they are newer, and below the built-ins so a
 *     step cannot fake DAG_RUN_ID by writing an output of that name.
 *  6. Built-in variables (DAG_NAME, DAG_RUN_ID, DAG_RUN_LOG_FILE, DAG_RUN_STEP_NAME, DAG_RUN_STEP_STDOUT_FILE,
 *     DAG_RUN_STEP_STDERR_FILE, SVC_PARAMS_JSON, ITEM, WEBHOOK_PAYLOAD, DAG_WAITING_STEPS, ...), given by the caller.
 *  7. Secrets: "injected after DAG-level variables and built-in variables, so they win over everything except
 *     step-level overrides" (2.4).
 *  8. Step `env`, evaluated in order with access to all of the above ("except step-level overrides", 2.4).
 *
 * Unknown variables in env values expand to '' (as a shell would); backquotes run through the injected runCommand.
 */
import type { EnvEntry } from '../spec/types.js';
import type { Lookup, RunCommand } from './expand.js';
import { expandAll } from './expand.js';

export { dotenvOrder, parseDotenv } from './dotenv.js';

export type SystemEnv = Record<string, string | undefined>;

export const SYSTEM_ENV_NAMES: readonly string[] = ['PATH', 'HOME', 'LANG', 'TZ', 'SHELL'];
export const SYSTEM_ENV_PREFIXES: readonly string[] = ['SVC_', 'LC_', 'DAG_'];

/**
 * svc's own settings (README "Configuration"; src/config reads them): SVC_-prefixed, but the service's, not
 * the steps'. They hold credentials (SVC_AUTH_*), where the data and the cluster are, and how the service is
 * exposed: never passed to a step, though SVC_ variables of the operator's choosing are. A test in src/config
 * keeps this list complete.
 */
export const SERVICE_SETTING_PREFIXES: readonly string[] = ['SVC_AUTH_', 'SVC_AUDIT_', 'SVC_S3_', 'SVC_MONITORING_', 'SVC_WEBHOOK_', 'SVC_WATCH_', 'SVC_PROTECTED_', 'SVC_ENTRY_', 'SVC_OPERATOR_', 'SVC_STEP_', 'SVC_DATA_', 'SVC_POD_'];
export const SERVICE_SETTINGS: readonly string[] = [
  'SVC_ALLOWED_HOSTS', 'SVC_BACKEND', 'SVC_CONFIG', 'SVC_DAGS_DIR', 'SVC_DEFAULT_SHELL', 'SVC_FORK_SERVER', 'SVC_HOST', 'SVC_KUBECONFIG', 'SVC_LEASE_SECONDS',
  'SVC_LOG_LEVEL', 'SVC_MAX_ACTIVE_RUNS', 'SVC_MAX_CALL_DEPTH', 'SVC_NAMESPACE', 'SVC_PORT', 'SVC_QUEUE_ENABLED', 'SVC_SECRET_ENV_FROM',
  'SVC_SERVER_METRICS', 'SVC_STOP_GRACE_SECONDS', 'SVC_TERMINAL_ENABLED', 'SVC_TZ', 'SVC_VERSION', 'SVC_MASK', 'SVC_UPLOAD',
];

export function isServiceSetting(name: string): boolean {
  return SERVICE_SETTINGS.includes(name) || SERVICE_SETTING_PREFIXES.some((p) => name.startsWith(p));
}

function definedEntries(env: SystemEnv): Array<[string, string]> {
  return Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined);
}

/** SPEC 2.7's list, less svc's own settings. */
function passesFilter(name: string): boolean {
  return (SYSTEM_ENV_NAMES.includes(name) || SYSTEM_ENV_PREFIXES.some((p) => name.startsWith(p))) && !isServiceSetting(name);
}

type Layer = ReadonlyMap<string, string>;

/**
 * What a system environment gives, worked out once per environment object: the engine passes the same
 * (never mutated) object for every step, and every step and every expansion looks names up in it.
 * `layer`: every variable, for expansion; `passed`: the ones a step process receives (SPEC 2.7).
 */
interface SystemView { layer: Layer; passed: ReadonlyArray<readonly [string, string]>; passedLayer: Layer }
const views = new WeakMap<SystemEnv, SystemView>();
function systemView(env: SystemEnv): SystemView {
  let view = views.get(env);
  if (!view) {
    const all = definedEntries(env);
    const passed = all.filter(([name]) => passesFilter(name));
    views.set(env, (view = { layer: new Map(all), passed, passedLayer: new Map(passed) }));
  }
  return view;
}
const systemLayer = (env: SystemEnv): Layer => systemView(env).layer;
const passedLayer = (env: SystemEnv): Layer => systemView(env).passedLayer;

/** The part of the service's environment a step process receives (SPEC 2.7). */
export function filterSystemEnv(env: SystemEnv): Record<string, string> {
  return Object.fromEntries(systemView(env).passed);
}

const toLayer = (entries: EnvEntry[]): Layer => new Map(entries.map((e) => [e.name, e.value]));

/** A lookup over layers, the first one holding the name wins. */
function chain(...layers: Layer[]): Lookup {
  return (name) => {
    for (const l of layers) {
      const v = l.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  };
}

/** Evaluates entries in order; `lookupFor` places the entries evaluated so far among the other layers. */
export async function evaluateEntries(entries: EnvEntry[], lookupFor: (soFar: ReadonlyMap<string, string>) => Lookup, runCommand: RunCommand): Promise<EnvEntry[]> {
  const soFar = new Map<string, string>();
  const lookup = lookupFor(soFar);
  const out: EnvEntry[] = [];
  for (const e of entries) {
    const value = await expandAll(e.value, lookup, runCommand, { keepUnknown: false, shellForms: true });
    soFar.set(e.name, value);
    out.push({ name: e.name, value });
  }
  return out;
}

export interface DagEnvInput {
  /** The full environment of the service process (not filtered). */
  systemEnv: SystemEnv;
  /** Entries of all dotenv files in load order (later files win); values are literal. */
  dotenv: EnvEntry[];
  /** DAG-level `env` as written. */
  dagEnv: EnvEntry[];
  /** paramsToEnv(...) of the run's params; values are literal. */
  params: EnvEntry[];
  runCommand: RunCommand;
}

export interface StepEnvInput extends DagEnvInput {
  /**
   * True when dagEnv already holds the output of resolveDagEnv. The engine should resolve DAG env once per run, so
   * a backquote in it runs once and every step sees the same value; evaluating a value twice would also undo `$$`.
   */
  dagEnvResolved?: boolean;
  /** Captured outputs of the upstream steps this step may see. */
  outputs: EnvEntry[];
  /** Built-in variables (layer 6). */
  builtins: EnvEntry[];
  /** Resolved secret values (name = the variable exposed to steps). */
  secrets: EnvEntry[];
  /** Step-level `env` as written. */
  stepEnv: EnvEntry[];
  /** Names only the evaluation of step env values sees, below every layer (step references by id). */
  refs?: Lookup;
}

/** Layer 3: a key set in the system environment keeps the system value (SPEC 2.2 dotenv). */
function dotenvLayer(dotenv: EnvEntry[], system: Layer): Layer {
  return new Map(dotenv.map((e) => [e.name, system.get(e.name) ?? e.value]));
}

/** Layer 2, evaluated once per run: DAG `env` values with `${VAR}` and backquotes resolved. */
export function resolveDagEnv(input: DagEnvInput): Promise<EnvEntry[]> {
  const system = systemLayer(input.systemEnv);
  const dot = dotenvLayer(input.dotenv, system);
  const params = toLayer(input.params);
  return evaluateEntries(input.dagEnv, (soFar) => chain(params, dot, soFar, system), input.runCommand);
}

/** The environment of a step process: filtered system env plus all layers, in the order of the module comment. */
export async function buildStepEnv(input: StepEnvInput): Promise<Record<string, string>> {
  const system = systemLayer(input.systemEnv);
  const dag = toLayer(input.dagEnvResolved ? input.dagEnv : await resolveDagEnv(input));
  // Layers 2-7, lowest first.
  const layers: Layer[] = [
    dag,
    dotenvLayer(input.dotenv, system),
    toLayer(input.params),
    toLayer(input.outputs),
    toLayer(input.builtins),
    toLayer(input.secrets),
  ];
  // Step env is evaluated when the step starts: of the system environment it sees what the step gets.
  const below = chain(...[...layers].reverse(), passedLayer(input.systemEnv));
  const step = input.stepEnv.length > 0 ? await evaluateEntries(input.stepEnv, (soFar) => (n) => soFar.get(n) ?? below(n) ?? input.refs?.(n), input.runCommand) : [];
  return Object.fromEntries([
    ...systemView(input.systemEnv).passed,
    ...layers.flatMap((l) => [...l]),
    ...step.map((e): [string, string] => [e.name, e.value]),
  ]);
}

/**
 * The lookup for `${VAR}` expansion of a step's fields (command, script, config, dir, conditions, params of
 * calls) and of everything else evaluated while the run runs (handlers, notifications): the step's environment
 * only, which holds what SPEC 2.7 passes of the system environment. The rest of the service's environment is
 * for load-time expansion (DAG env, params defaults, dotenv, secrets) only, so `echo ${X}` with X only in the
 * service's environment prints nothing, as in the reference.
 */
export function buildExpansionLookup(stepEnv: Record<string, string>): Lookup {
  const env = new Map(Object.entries(stepEnv));
  return (name) => env.get(name);
}
