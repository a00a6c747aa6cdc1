/** What a step runs (SPEC 2.3, 2.6): its type after aliases and inference, commands, script and call target. */
import type { KubernetesBlock, StepType } from './types.js';
import type { Problems } from './errors.js';
import { at } from './errors.js';
import type { Obj } from './values.js';
import { isObj, str } from './values.js';

const TYPE_ALIASES: Record<string, StepType> = {
  command: 'shell', docker: 'container', github_action: 'gha', 'github-action': 'gha',
};
/** Types whose `command` must be one string (SPEC 2.3). */
const SINGLE_COMMAND_TYPES = new Set<StepType>(['jq', 'http', 'archive', 'mail', 'gha', 'dag']);
/** Types where a multi-line command string is a script, as in the reference implementation. */
const SCRIPT_TYPES = new Set<StepType>(['shell', 'ssh', 'container']);

export interface DagDefaults {
  /** The DAG has a container: steps default to type container. */
  container: boolean;
  /** The DAG has ssh: steps without a type default to ssh. */
  ssh: boolean;
  /** The DAG's kubernetes block: a step's volumeMounts may name its volumes. */
  kubernetes?: KubernetesBlock;
}

export interface StepKind {
  type: StepType;
  config: Obj;
  commands: string[];
  script?: string;
  call?: string;
}

const STEP_TYPES = new Set<string>([
  'shell', 'ssh', 's3', 'http', 'archive', 'mail', 'jq', 'redis', 'chat', 'hitl', 'dag', 'gha', 'container', 'postgres', 'sqlite',
]);

/** The canonical type of a written one; undefined when absent or unknown (the schema reports unknown values). */
function canonicalType(written: string | undefined): StepType | undefined {
  if (written === undefined) return undefined;
  const t = TYPE_ALIASES[written] ?? written;
  return STEP_TYPES.has(t) ? (t as StepType) : undefined;
}

function writtenTypeAndConfig(raw: Obj, path: string, problems: Problems): [string | undefined, Obj] {
  const ex = raw.executor;
  if (ex === undefined) return [str(raw.type), isObj(raw.config) ? raw.config : {}];
  if (raw.type !== undefined || raw.config !== undefined) problems.add(at(path, 'executor'), 'cannot be combined with type/config');
  if (raw.container !== undefined) problems.add(at(path, 'container'), 'cannot be combined with executor');
  if (typeof ex === 'string') return [ex, {}];
  return isObj(ex) ? [str(ex.type), isObj(ex.config) ? ex.config : {}] : [undefined, {}];
}

function inferType(raw: Obj, dag: DagDefaults): StepType {
  if (raw.call !== undefined || raw.run !== undefined) return 'dag';
  if (raw.container !== undefined || dag.container) return 'container';
  return dag.ssh ? 'ssh' : 'shell';
}

function commandList(raw: Obj, type: StepType, path: string, problems: Problems): string[] {
  const cmd = raw.command;
  if (Array.isArray(cmd)) {
    if (SINGLE_COMMAND_TYPES.has(type)) problems.add(at(path, 'command'), `must be a single string for ${type} steps`);
    return cmd.filter((c): c is string => typeof c === 'string');
  }
  const text = typeof cmd === 'string' ? cmd.trim() : '';
  return text === '' ? [] : [text];
}

function callTarget(raw: Obj, type: StepType, commands: string[], path: string, problems: Problems): string | undefined {
  if (raw.call !== undefined && raw.run !== undefined) problems.add(at(path, 'run'), 'deprecated alias of call: use only call');
  const call = str(raw.call) ?? str(raw.run);
  if (type !== 'dag') {
    if (call !== undefined) problems.add(at(path, raw.call !== undefined ? 'call' : 'run'), `not allowed for ${type} steps`);
    return undefined;
  }
  if (call !== undefined && commands.length > 0) problems.add(at(path, 'command'), 'not allowed together with call');
  const target = call ?? commands[0];
  if (target === undefined || target.trim() === '') problems.add(at(path, 'call'), 'is required for dag steps (or command)');
  return target?.trim();
}

/** Resolves type (aliases, executor form, inference), commands, script and call of one step. */
export function parseStepKind(raw: Obj, path: string, dag: DagDefaults, problems: Problems): StepKind {
  const [written, config] = writtenTypeAndConfig(raw, path, problems);
  const type = canonicalType(written) ?? inferType(raw, dag);
  if (raw.container !== undefined && raw.script !== undefined) problems.add(at(path, 'container'), 'cannot be combined with script');
  let commands = commandList(raw, type, path, problems);
  let script = str(raw.script);
  const single = commands.length === 1 && !Array.isArray(raw.command) ? commands[0] : undefined;
  if (single !== undefined && single.includes('\n') && SCRIPT_TYPES.has(type)) {
    if (script !== undefined) problems.add(at(path, 'command'), 'a multi-line command is a script: cannot be combined with script');
    else script = raw.command as string;
    commands = [];
  }
  const call = callTarget(raw, type, commands, path, problems);
  if (type === 'dag') commands = [];
  if ((type === 'shell' || type === 'ssh') && commands.length === 0 && script === undefined) {
    problems.add(at(path, 'command'), 'is required (or script)');
  }
  return { type, config: { ...config }, commands, ...(script !== undefined ? { script } : {}), ...(call !== undefined ? { call } : {}) };
}
