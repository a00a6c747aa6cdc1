/** One step (SPEC 2.3) from YAML to StepDefinition, except its name and final depends (see steps.ts). */
import type { ChatMessage, StepDefinition } from './types.js';
import type { Problems } from './errors.js';
import { at } from './errors.js';
import { parseContainer, parseLlm, parseSsh } from './blocks.js';
import { checkStepMounts, parseKubernetes } from './kubernetes.js';
import { stepIdProblem } from './names.js';
import { parseEnv, parseShell } from './params.js';
import {
  parseContinueOn, parseOutput, parseParallel, parsePreconditions, parseRepeatPolicy, parseRetryPolicy,
} from './policies.js';
import { canonicalSignal } from './signals.js';
import type { DagDefaults } from './step-kind.js';
import { parseStepKind } from './step-kind.js';
import type { Obj } from './values.js';
import { bool, compact, int, isObj, str, strList, strMap } from './values.js';

const SSH_CONFIG_FIELDS = ['user', 'host', 'port', 'key', 'password', 'shell', 'strictHostKey', 'knownHostFile'];

/** Exclusive alias pairs of a step: [preferred, alias]. */
const ALIASES: Array<[string, string]> = [['workingDir', 'dir'], ['preconditions', 'precondition']];

function checkAliases(raw: Obj, path: string, problems: Problems): void {
  for (const [name, alias] of ALIASES) {
    if (raw[name] !== undefined && raw[alias] !== undefined) problems.add(at(path, alias), `alias of ${name}: use only one of them`);
  }
}

function checkId(raw: Obj, path: string, problems: Problems): string | undefined {
  const id = str(raw.id);
  if (id === undefined) return undefined;
  const problem = stepIdProblem(id);
  if (problem) problems.add(at(path, 'id'), problem);
  return id;
}

function checkStreams(raw: Obj, path: string, problems: Problems): void {
  const out = str(raw.stdout);
  if (out !== undefined && out !== '' && out === str(raw.stderr)) {
    problems.add(at(path, 'stderr'), 'must differ from stdout (use logOutput: merged for one file)');
  }
}

function signal(raw: Obj, path: string, problems: Problems): string {
  const written = str(raw.signalOnStop);
  if (written === undefined) return 'SIGTERM';
  const sig = canonicalSignal(written);
  if (!sig) problems.add(at(path, 'signalOnStop'), `unknown signal "${written}"`);
  return sig ?? 'SIGTERM';
}

function messages(raw: unknown): ChatMessage[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObj).map((m) => ({ role: m.role as ChatMessage['role'], content: str(m.content) ?? '' }));
}

/** hitl config: prompt, input (names), required (a subset of input). */
function checkHitlConfig(config: Obj, path: string, problems: Problems): void {
  const input = strList(config.input);
  if (config.prompt !== undefined && typeof config.prompt !== 'string') problems.add(at(path, 'prompt'), 'must be a string');
  if (config.input !== undefined && !Array.isArray(config.input)) problems.add(at(path, 'input'), 'must be a list of names');
  if (config.required !== undefined && !Array.isArray(config.required)) problems.add(at(path, 'required'), 'must be a list of names');
  for (const name of strList(config.required)) {
    if (!input.includes(name)) problems.add(at(path, 'required'), `"${name}" is not listed in input`);
  }
}

/** A step-level ssh config (SPEC 2.2: replaces the DAG one; its shell must be a string). */
function stepSsh(config: Obj, path: string, problems: Problems): StepDefinition['ssh'] {
  if (!SSH_CONFIG_FIELDS.some((f) => config[f] !== undefined)) return undefined;
  if (config.shell !== undefined && typeof config.shell !== 'string') problems.add(at(path, 'shell'), 'must be a string');
  return parseSsh({ ...config, shell: str(config.shell) });
}

function typeSpecific(step: StepDefinition, raw: Obj, path: string, problems: Problems): void {
  const cfgPath = at(path, raw.executor !== undefined ? 'executor.config' : 'config');
  if (step.type === 'hitl') checkHitlConfig(step.config, cfgPath, problems);
  if (step.type === 'ssh') step.ssh = stepSsh(step.config, cfgPath, problems);
  if (step.type === 'chat' && step.messages.length === 0) problems.add(at(path, 'messages'), 'is required for chat steps');
  if (step.parallel && step.type !== 'dag') problems.add(at(path, 'parallel'), 'is only supported for steps that call a sub-DAG');
}

/** A bare string step is its command. */
export function stepObject(raw: unknown): Obj | undefined {
  if (typeof raw === 'string') return { command: raw };
  return isObj(raw) ? raw : undefined;
}

/**
 * Normalises a step object. `name` is the final name (given or generated); `depends` is left as written
 * (names or ids) and resolved by steps.ts.
 */
export function parseStep(raw: Obj, name: string, path: string, dag: DagDefaults, problems: Problems): StepDefinition {
  checkAliases(raw, path, problems);
  checkStreams(raw, path, problems);
  const kind = parseStepKind(raw, path, dag, problems);
  const step = compact<StepDefinition>({
    name, id: checkId(raw, path, problems), description: str(raw.description), ...kind,
    params: typeof raw.params === 'string' || isObj(raw.params) ? raw.params : undefined,
    depends: strList(raw.depends).map((d) => d.trim()).filter((d) => d !== ''),
    workingDir: str(raw.workingDir) ?? str(raw.dir), shell: parseShell(raw.shell), stdout: str(raw.stdout),
    stderr: str(raw.stderr), logOutput: raw.logOutput === 'merged' || raw.logOutput === 'separate' ? raw.logOutput : undefined,
    output: parseOutput(raw.output, at(path, 'output'), problems), env: parseEnv(raw.env, at(path, 'env'), problems),
    timeoutSec: typeof raw.timeoutSec === 'number' ? int(raw.timeoutSec, 0) : undefined,
    signalOnStop: signal(raw, path, problems), mailOnError: bool(raw.mailOnError, false),
    container: parseContainer(raw.container, at(path, 'container'), problems), llm: parseLlm(raw.llm),
    messages: messages(raw.messages), parallel: parseParallel(raw.parallel, at(path, 'parallel'), problems),
    preconditions: parsePreconditions(raw.preconditions ?? raw.precondition, at(path, raw.preconditions !== undefined ? 'preconditions' : 'precondition'), problems),
    continueOn: parseContinueOn(raw.continueOn, at(path, 'continueOn'), problems),
    retryPolicy: parseRetryPolicy(raw.retryPolicy),
    repeatPolicy: parseRepeatPolicy(raw.repeatPolicy, at(path, 'repeatPolicy'), problems),
    workerSelector: isObj(raw.workerSelector) ? strMap(raw.workerSelector) : undefined,
    kubernetes: parseKubernetes(raw.kubernetes, at(path, 'kubernetes'), problems),
  });
  checkStepMounts(dag.kubernetes, step.kubernetes, at(path, 'kubernetes'), problems);
  typeSpecific(step, raw, path, problems);
  if (step.type === 'container' && !step.container && !dag.container) {
    problems.add(at(path, 'container'), 'is required for container steps when the DAG has no container');
  }
  return step;
}

