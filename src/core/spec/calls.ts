/**
 * Sub-DAG calls (SPEC 2.3 `call`, and chat steps' tools) between DAGs: the cycles a check can see before a run, and the nesting
 * depth every run is held to. A `call` resolves to a local DAG of the same file first, else to the DAG
 * file of that name (engine/run/subdag.ts does the same at run time).
 */
import type { DagDefinition } from './types.js';

/** How deep sub-DAG calls may nest by default (SVC_MAX_CALL_DEPTH): the root run is depth 0. */
export const DEFAULT_MAX_CALL_DEPTH = 10;

/** A DAG as calls see it: its definition and the local DAGs of its file. */
export interface CallableDag {
  definition: DagDefinition;
  localDags: Record<string, DagDefinition>;
}

/**
 * `call` targets and chat steps' tools (`llm.tools`, run as sub-DAG runs too) written out (no variable,
 * no backquote): the only ones a check before the run can follow.
 */
export function literalCallTargets(def: DagDefinition): string[] {
  const steps = [...def.steps, ...Object.values(def.handlerOn)];
  const calls = steps.map((s) => s.call);
  const tools = steps.filter((s) => s.type === 'chat').flatMap((s) => (s.llm ?? def.llm)?.tools ?? []);
  return [...new Set([...calls, ...tools].filter((c): c is string => !!c && !/[$`]/.test(c)))];
}

/** One DAG of the call graph: a file, or one of its local DAGs. */
interface CallNode {
  file: string;
  local?: string;
}

const keyOf = (n: CallNode): string => (n.local === undefined ? n.file : `${n.file}\u0000${n.local}`);
const labelOf = (n: CallNode): string => n.local ?? n.file;

/**
 * The first call cycle reachable from `root` (stored, or about to be, as `rootFile`), as the chain of
 * DAG names from the root to the repeated one; undefined when there is none. `files`: the DAG files the
 * calls name (engine: collectCallees); a name missing there is not followed (a run reports it).
 */
export function findCallCycle(rootFile: string, root: CallableDag, files: ReadonlyMap<string, CallableDag | undefined>): string[] | undefined {
  const fileOf = (name: string): CallableDag | undefined => (name === rootFile ? root : files.get(name));
  const done = new Set<string>();
  const path: CallNode[] = [];
  const visit = (node: CallNode): string[] | undefined => {
    const file = fileOf(node.file);
    const def = node.local === undefined ? file?.definition : file?.localDags[node.local];
    if (!file || !def) return undefined;
    const at = path.findIndex((p) => keyOf(p) === keyOf(node));
    if (at >= 0) return [...path, node].map(labelOf);
    if (done.has(keyOf(node))) return undefined;
    path.push(node);
    for (const target of literalCallTargets(def)) {
      const found = visit(file.localDags[target] ? { file: node.file, local: target } : { file: target });
      if (found) return found;
    }
    path.pop();
    done.add(keyOf(node));
    return undefined;
  };
  return visit({ file: rootFile });
}

/** The validation error of a call cycle, naming the chain. */
export function callCycleError(chain: string[]): string {
  return `call cycle: ${chain.join(' -> ')} (a DAG must not call itself, directly or through other DAGs)`;
}

/**
 * A sub-DAG call that would nest deeper than `max`: `chain` names the calling run and its ancestors,
 * root first; `next` the DAG it calls. Undefined when the call may go ahead.
 */
export function callDepthProblem(chain: string[], next: string, max: number): string | undefined {
  if (chain.length <= max) return undefined;
  return `sub-DAG calls nest deeper than ${max} (SVC_MAX_CALL_DEPTH): ${[...chain, next].join(' -> ')}`;
}
