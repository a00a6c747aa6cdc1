/**
 * The run as data (the DagRun status) and the vocabulary of decide(): observations in, effects out.
 * Times are ISO strings so the state is plain JSON and survives a round trip through the store.
 */
import type { DagDefinition, HandlerKind, StepDefinition } from '../spec/types.js';
import { HANDLER_KINDS, HANDLER_STEP_NAMES } from '../spec/types.js';
import { NodeStatus, RunStatus } from './status.js';
import { cloneNode } from './clone.js';

export interface SubRunRef {
  dagRunId: string;
  name: string;
  params: string;
  status: RunStatus;
}

/** One execution of a parallel item. */
export interface ItemState {
  index: number;
  item: string;
  status: NodeStatus;
  attempt: number;
  retryCount: number;
  exitCode?: number;
  error: string;
  output?: string;
  nextAt?: string;
}

export interface NodeState {
  /** Step name, or the handler node name (onExit, onFailure, ...). */
  name: string;
  handler?: HandlerKind;
  status: NodeStatus;
  startedAt: string;
  finishedAt: string;
  /** Executions started so far; the identity of the next one. */
  attempt: number;
  retryCount: number;
  /** Completed executions (repeatPolicy). */
  doneCount: number;
  exitCode?: number;
  error: string;
  /** When the node is scheduled to run again (retry or repeat interval). */
  nextAt?: string;
  /** Captured stdout (trimmed, masked) of the last execution. */
  output?: string;
  /** True when continueOn allowed this failure through (for partial success). */
  continued?: boolean;
  /** When a stop signal was sent to the running execution, and whether SIGKILL followed. */
  signalledAt?: string;
  killed?: boolean;
  items?: ItemState[];
  subRuns: SubRunRef[];
  /** Inputs given at approval (hitl). */
  approvalInputs?: Record<string, string>;
}

export type Stage = 'delay' | 'preconditions' | 'init' | 'steps' | 'handler' | 'exit' | 'done';

export interface RunState {
  status: RunStatus;
  stage: Stage;
  startedAt: string;
  finishedAt: string;
  /** Set when the DAG's delaySec postpones the first step. */
  startAfter?: string;
  /** Set from the DAG's timeoutSec. */
  deadline?: string;
  stopRequestedAt?: string;
  timedOut?: boolean;
  /** The run status decided before the success/failure/abort handler ran. */
  outcome?: RunStatus;
  nodes: NodeState[];
  handlers: NodeState[];
  /** Captured output variables by variable name, in execution order (last writer wins). */
  variables: Record<string, string>;
  /** The outputs.json map (key -> value), omit entries excluded. */
  outputs: Record<string, string>;
  error: string;
}

/** Identity of one execution: deterministic, so a launcher can adopt instead of duplicating. */
export interface ExecRef {
  node: string;
  attempt: number;
  item?: number;
}

export const execKey = (e: ExecRef): string =>
  e.item === undefined ? `${e.node}#${e.attempt}` : `${e.node}[${e.item}]#${e.attempt}`;

export type Effect =
  | { kind: 'exec'; exec: ExecRef }
  | { kind: 'signal'; exec: ExecRef; signal: string }
  /** Text the engine itself writes to an execution's stdout log (a parallel step's aggregate). */
  | { kind: 'print'; exec: ExecRef; text: string }
  | { kind: 'checkPreconditions' }
  | { kind: 'resolveItems'; node: string }
  | { kind: 'finished'; status: RunStatus };

export interface ExecResult {
  exitCode: number;
  error?: string;
  /** Captured stdout for `output:` (already trimmed and masked). */
  output?: string;
  /** continueOn.output matched the stdout log. */
  outputMatched?: boolean;
  /** repeatPolicy condition matched its expected value (or the command exited 0). */
  conditionMatched?: boolean;
  /** The step's own timeoutSec elapsed. */
  timedOut?: boolean;
  /** Preconditions were not met: the step is skipped. */
  skipped?: boolean;
  /** An approval step is now waiting. */
  waiting?: boolean;
  /** A sub-DAG finished partially_succeeded. */
  partial?: boolean;
  /** Killed by this signal (stop). */
  signal?: string;
}

export type Observation =
  | { type: 'execFinished'; exec: ExecRef; result: ExecResult }
  | { type: 'subRun'; exec: ExecRef; subRun: SubRunRef }
  | { type: 'preconditions'; met: boolean; error?: string }
  | { type: 'items'; node: string; items: string[]; error?: string }
  | { type: 'stop' }
  | { type: 'approve'; node: string; inputs: Record<string, string> }
  | { type: 'reject'; node: string; reason?: string }
  | { type: 'patchStatus'; node: string; status: NodeStatus };

export interface Decision {
  state: RunState;
  effects: Effect[];
  /** Earliest time decide() must be called again even without observations. */
  wakeAt?: string;
}

export const handlerNodeName = (kind: HandlerKind): string => HANDLER_STEP_NAMES[kind];

export function newNode(name: string, handler?: HandlerKind): NodeState {
  return cloneNode({ name, handler, status: NodeStatus.NotStarted, startedAt: '', finishedAt: '', attempt: 0, retryCount: 0, doneCount: 0, error: '', subRuns: [] });
}

export function newRunState(def: DagDefinition): RunState {
  return {
    status: RunStatus.NotStarted, stage: 'delay', startedAt: '', finishedAt: '',
    nodes: def.steps.map((s) => newNode(s.name)),
    handlers: HANDLER_KINDS.filter((k) => def.handlerOn[k]).map((k) => newNode(handlerNodeName(k), k)),
    variables: {}, outputs: {}, error: '',
  };
}

/** Something derived from a definition, built on first use and kept as long as the definition object lives. */
function perDefinition<T>(build: (def: DagDefinition) => T): (def: DagDefinition) => T {
  const made = new WeakMap<DagDefinition, T>();
  return (def) => {
    let v = made.get(def);
    if (v === undefined) made.set(def, v = build(def));
    return v;
  };
}

/** Index of each step by name in def.steps. */
const stepIndex = perDefinition((def) => new Map(def.steps.map((s, i) => [s.name, i])));
const indexOf = (def: DagDefinition, name: string): number | undefined => stepIndex(def).get(name);

/**
 * For each step of def.steps, the indices of its `depends` in def.steps, in their order (undefined when
 * one names no step).
 */
export const dependencyIndexes = perDefinition((def): ReadonlyArray<readonly number[] | undefined> =>
  def.steps.map((step) => {
    const out: number[] = [];
    for (const dep of step.depends) {
      const i = indexOf(def, dep);
      if (i === undefined) return undefined;
      out.push(i);
    }
    return out;
  }));

/** The step definition behind a node (handlers included). */
export function stepOf(def: DagDefinition, node: NodeState): StepDefinition | undefined {
  if (node.handler) return def.handlerOn[node.handler];
  const i = indexOf(def, node.name);
  return i === undefined ? undefined : def.steps[i];
}

/**
 * Position of a main node in s.nodes. newRunState() lays the nodes out in the order of def.steps, so
 * the step's index is tried first; a state of another layout is searched.
 */
export function mainNodeIndex(def: DagDefinition, s: RunState, name: string): number {
  const i = indexOf(def, name);
  if (i !== undefined && s.nodes[i]?.name === name) return i;
  return s.nodes.findIndex((n) => n.name === name);
}

/** A main or handler node by name. */
export function findNode(def: DagDefinition, s: RunState, name: string): NodeState | undefined {
  const i = mainNodeIndex(def, s, name);
  return i >= 0 ? s.nodes[i] : s.handlers.find((n) => n.name === name);
}
