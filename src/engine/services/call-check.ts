/**
 * Call cycles a check can see before a run (issue 20): the DAG files the literal `call`s of a DAG reach,
 * read through the DagSource, then core's findCallCycle. Calls whose target comes from a variable are
 * left to the depth limit of engine/run/subdag.ts.
 */
import type { DagSource, LoadedDag } from '../../core/ports/engine-ports.js';
import { callCycleError, findCallCycle, literalCallTargets, type CallableDag } from '../../core/spec/calls.js';

/** Reading stops after this many DAG files: a check, not a crawl of a huge catalog. */
const MAX_FILES = 500;

/** Targets of every DAG of a file (its own and its local ones) that are not local DAGs of that file. */
function fileCallees(dag: CallableDag): string[] {
  const defs = [dag.definition, ...Object.values(dag.localDags)];
  return defs.flatMap(literalCallTargets).filter((t) => !dag.localDags[t]);
}

/** The DAG files reachable through literal calls from `root`, by name (undefined: not found or unreadable). */
export async function collectCallees(root: CallableDag, find: DagSource['find']): Promise<Map<string, CallableDag | undefined>> {
  const files = new Map<string, CallableDag | undefined>();
  let todo = fileCallees(root);
  while (todo.length > 0 && files.size < MAX_FILES) {
    const names = [...new Set(todo)].filter((n) => !files.has(n) && n !== root.definition.name);
    const found = await Promise.all(names.map((n) => find(n).catch(() => undefined)));
    names.forEach((n, i) => files.set(n, found[i]));
    todo = found.flatMap((f) => (f ? fileCallees(f) : []));
  }
  return files;
}

/** The call-cycle error of a DAG (stored under its name), or none. */
export async function callCycleErrors(dag: LoadedDag, find: DagSource['find']): Promise<string[]> {
  if (dag.errors.length > 0) return [];
  const chain = findCallCycle(dag.definition.name, dag, await collectCallees(dag, find));
  return chain ? [callCycleError(chain)] : [];
}
