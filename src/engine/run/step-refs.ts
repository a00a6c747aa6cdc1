/**
 * `${id.stdout}`, `${id.stderr}` (the paths of the step's logs, as the reference gives them),
 * `${id.exitCode}` (`${id.exit_code}`) and `${id.output}`: each finished step with an `id`, as a JSON
 * value read through its path. Only expansion sees them (never a process's environment), below every
 * variable: a variable of the same name wins.
 */
import type { DagRunResource } from '../../core/resources.js';
import type { RunState } from '../../core/run/state.js';
import type { Lookup } from '../../core/vars/expand.js';
import type { EngineDeps } from '../deps.js';
import { execLogOf } from './exec-logs.js';

export function stepRefs(deps: Pick<EngineDeps, 'logs'>, run: DagRunResource, state: Pick<RunState, 'nodes'>): Lookup {
  let refs: Map<string, string> | undefined;
  return (name) => (refs ??= build(deps, run, state)).get(name);
}

function build(deps: Pick<EngineDeps, 'logs'>, run: DagRunResource, state: Pick<RunState, 'nodes'>): Map<string, string> {
  const refs = new Map<string, string>();
  const nodes = new Map(state.nodes.map((n) => [n.name, n]));
  for (const step of run.spec.definition.steps) {
    const node = nodes.get(step.name);
    if (!step.id || !node?.finishedAt || node.attempt === 0) continue;
    const last = { node: node.name, attempt: node.attempt - 1 };
    const exitCode = node.exitCode ?? 0;
    refs.set(step.id, JSON.stringify({
      stdout: deps.logs.locate(execLogOf(run, step, last, 'stdout')), stderr: deps.logs.locate(execLogOf(run, step, last, 'stderr')),
      exitCode, exit_code: exitCode, ...(node.output !== undefined ? { output: node.output } : {}),
    }));
  }
  return refs;
}
