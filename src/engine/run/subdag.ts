/**
 * A step that calls another DAG (SPEC 2.3 call, 2.6 dag): the child is a DagRun of its own with
 * parent and root references, driven by the same engine. Its id is derived from the parent run,
 * step and attempt, so a repeated effect (after a crash) adopts the child instead of starting twice.
 */
import { createHash } from 'node:crypto';
import type { RunningExec } from '../../core/ports/executor.js';
import type { DagRunResource } from '../../core/resources.js';
import type { ExecRef, ExecResult, NodeState, Observation } from '../../core/run/state.js';
import { RunStatus, isRunSuccess, isRunTerminal, runStatusLabel } from '../../core/run/status.js';
import type { StepDefinition } from '../../core/spec/types.js';
import { DEFAULT_MAX_CALL_DEPTH, callDepthProblem } from '../../core/spec/calls.js';
import { expandVars } from '../../core/vars/expand.js';
import { paramsDisplay, resolveParams, type ResolvedParams } from '../../core/vars/params.js';
import { AlreadyExistsError } from '../../core/errors.js';
import type { EngineDeps } from '../deps.js';
import type { BuiltRequest } from './exec-request.js';
import { execLogOf } from './exec-logs.js';
import type { RunContext } from './run-context.js';
import { newRunResource } from './run-factory.js';

export function childRunId(parent: DagRunResource, exec: ExecRef): string {
  const h = createHash('sha256').update(`${parent.spec.dagRunId}/${parent.status.attemptId}/${exec.node}/${exec.item ?? ''}/${exec.attempt}`).digest('hex');
  return h.slice(0, 32);
}

function paramsString(step: StepDefinition, lookup: (n: string) => string | undefined, item?: string): string {
  const p = step.params;
  if (p === undefined) return item ?? '';
  if (typeof p === 'string') return expandVars(p, lookup);
  return expandVars(JSON.stringify(p), lookup);
}

export interface SubDagEnv {
  deps: EngineDeps;
  parent: DagRunResource;
  ctx: RunContext;
  push: (o: Observation) => void;
  setLive: (r: RunningExec) => void;
  /** Drives a run to its end (the engine's driver; injected to keep the module graph acyclic). */
  drive: DriveSubRun;
}

/**
 * Drives a sub-DAG run to its end, with the system environment it inherits from its parent; returns the
 * run and its params as evaluated (none when it had ended before).
 */
export type DriveSubRun = (key: { dagName: string; dagRunId: string }, systemEnv: Record<string, string>) => Promise<{ run: DagRunResource; params?: ResolvedParams }>;

export interface SubDagCall {
  node: NodeState;
  step: StepDefinition;
  exec: ExecRef;
  built: BuiltRequest;
}

/**
 * The DAG names of a run and its ancestors, root first, read up the parent references: at most
 * `limit` of them (the depth check needs no more).
 */
async function callChain(deps: EngineDeps, run: DagRunResource, limit: number): Promise<string[]> {
  const chain = [run.spec.dagName];
  let ref = run.spec.parent;
  while (ref && chain.length < limit) {
    chain.unshift(ref.name);
    const up = await deps.store.get({ dagName: ref.name, dagRunId: ref.dagRunId });
    ref = up?.spec.parent;
  }
  return chain;
}

export async function runSubDag(env: SubDagEnv, call: SubDagCall): Promise<ExecResult> {
  const { deps, parent, ctx, push, setLive } = env;
  const { node, step, exec, built } = call;
  const name = expandVars(step.call!, built.lookup);
  const max = deps.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH;
  const tooDeep = callDepthProblem(await callChain(deps, parent, max + 1), name, max);
  if (tooDeep) return { exitCode: 1, error: tooDeep };
  const local = parent.spec.localDags[name];
  const found = local ? { definition: local, localDags: parent.spec.localDags, sourceFile: parent.spec.sourceFile, errors: [] } : await deps.dags.find(name);
  if (!found) return { exitCode: 1, error: `sub-DAG "${name}" not found` };
  if (found.errors.length > 0) return { exitCode: 1, error: `sub-DAG "${name}" is invalid: ${found.errors.join('; ')}` };
  const item = exec.item !== undefined ? node.items?.find((i) => i.index === exec.item)?.item : undefined;
  const dagRunId = childRunId(parent, exec);
  const child = newRunResource(deps, {
    definition: found.definition, localDags: found.localDags, sourceFile: found.sourceFile,
    dagRunId, params: paramsString(step, built.lookup, item), trigger: 'subdag',
    parent: { name: parent.spec.dagName, dagRunId: parent.spec.dagRunId }, root: parent.spec.root,
    workingDir: found.definition.workingDir ? undefined : ctx.workingDir,
  });
  try {
    await deps.store.create(child);
  } catch (e) {
    if (!(e instanceof AlreadyExistsError)) throw e;
  }
  const key = { dagName: child.spec.dagName, dagRunId };
  push({ type: 'subRun', exec, subRun: { dagRunId, name: child.spec.dagName, params: child.spec.params, status: RunStatus.Running } });
  setLive({ result: Promise.resolve({ exitCode: 0 }), signal: () => void deps.store.requestStop(key).catch(() => undefined) });
  const { run: done, params: evaluated } = await env.drive(key, ctx.childEnv);
  const status = done.status.run.status;
  push({ type: 'subRun', exec, subRun: { dagRunId, name: child.spec.dagName, params: child.spec.params, status } });
  const output = subDagResult(done, dagRunId, evaluated);
  // As the reference does: the result is the calling step's stdout too.
  await deps.logs.append(execLogOf(parent, step, exec, 'stdout'), `${output}\n`);
  if (isRunSuccess(status)) return { exitCode: 0, output, ...(status === RunStatus.PartiallySucceeded ? { partial: true } : {}) };
  const aborted = status === RunStatus.Aborted ? { signal: 'SIGTERM' } : {};
  return { exitCode: 1, output, ...aborted, error: `sub-DAG run ${dagRunId} ${isRunTerminal(status) ? 'ended' : 'is'} with status ${status}` };
}

/**
 * What a sub-DAG step captures and prints, in the reference's shape: the run's name and id, its params
 * (defaults with the call's values over them) when it has any, its outputs and its status label, as indented JSON. Each output is there by its
 * outputs.json key (`${RES.outputs.greeting}`, SPEC 2.6) and, as the reference has it, by its variable
 * name (`${RES.outputs.GREETING}`): masked as in outputs.json, omitted ones left out (ADR 0018).
 */
function subDagResult(done: DagRunResource, dagRunId: string, evaluated: ResolvedParams | undefined): string {
  const { definition, params } = done.spec;
  const outputs: Record<string, string> = {};
  for (const step of definition.steps) {
    const o = step.output;
    const value = o && !o.omit ? done.status.run.outputs[o.key] : undefined;
    if (o && value !== undefined) Object.assign(outputs, { [o.key]: value, [o.name]: value });
  }
  // Evaluated defaults as the child saw them (`${VAR}`, backquotes); unevaluated only for a child that had ended before (adopted).
  const shown = paramsDisplay(evaluated ?? resolveParams(definition.params, params || undefined));
  return JSON.stringify({ name: done.spec.dagName, dagRunId, ...(shown ? { params: shown } : {}), outputs, status: runStatusLabel(done.status.run.status) }, null, 2);
}
