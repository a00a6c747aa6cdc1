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
import type { EnvEntry, StepDefinition } from '../../core/spec/types.js';
import { DEFAULT_MAX_CALL_DEPTH, callDepthProblem } from '../../core/spec/calls.js';
import { expandVars } from '../../core/vars/expand.js';
import { paramsDisplay, resolveParams, type ResolvedParams } from '../../core/vars/params.js';
import { AlreadyExistsError } from '../../core/errors.js';
import { maskSecretForms, referenceSecrets } from '../../core/secret-values.js';
import type { EngineDeps } from '../deps.js';
import type { BuiltRequest } from './exec-request.js';
import { execLogOf } from './exec-logs.js';
import type { RunContext } from './run-context.js';
import { newRunResource } from './run-factory.js';

/** `tag` tells apart the several runs of one execution (a chat step's tool calls). */
export function childRunId(parent: DagRunResource, exec: ExecRef, tag?: string): string {
  const h = createHash('sha256').update(`${parent.spec.dagRunId}/${parent.status.attemptId}/${exec.node}/${exec.item ?? ''}/${exec.attempt}${tag === undefined ? '' : `/${tag}`}`).digest('hex');
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
 * Drives a sub-DAG run to its end, with the system environment it inherits from its parent and the
 * secrets its params name; returns the run and its params as evaluated (none when it had ended before).
 */
export type DriveSubRun = (key: { dagName: string; dagRunId: string }, systemEnv: Record<string, string>, secrets: EnvEntry[]) => Promise<{ run: DagRunResource; params?: ResolvedParams }>;

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

/** A DAG a step runs (call, chat tool), found as it is run: its definition, local DAGs and file. */
export interface Callee {
  name: string;
  definition: DagRunResource['spec']['definition'];
  localDags: DagRunResource['spec']['localDags'];
  sourceFile: string | undefined;
}

/**
 * The DAG `name` as a step of `parent` runs it: a local DAG of the run's file first, else the DAG file
 * of that name; an error when it is missing or invalid, or when the call would nest too deep.
 */
export async function findCallee(deps: EngineDeps, parent: DagRunResource, name: string): Promise<Callee | { error: string }> {
  const max = deps.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH;
  const tooDeep = callDepthProblem(await callChain(deps, parent, max + 1), name, max);
  if (tooDeep) return { error: tooDeep };
  const local = parent.spec.localDags[name];
  const found = local ? { definition: local, localDags: parent.spec.localDags, sourceFile: parent.spec.sourceFile, errors: [] } : await deps.dags.find(name);
  if (!found) return { error: `sub-DAG "${name}" not found` };
  if (found.errors.length > 0) return { error: `sub-DAG "${name}" is invalid: ${found.errors.join('; ')}` };
  return { name, definition: found.definition, localDags: found.localDags, sourceFile: found.sourceFile };
}

/**
 * A sub-DAG run of an execution, created (or found, when a repeated effect created it before). A secret
 * value in its params is stored as a reference to the secret (`${NAME}`), never as the value (ADR 0028):
 * its spec, the caller's `subRuns[].params` and the logs show the reference; driveChild hands the values over.
 */
export async function createChild(env: SubDagEnv, callee: Callee, dagRunId: string, params: string): Promise<DagRunResource> {
  const { deps, parent, ctx } = env;
  const child = newRunResource(deps, {
    definition: callee.definition, localDags: callee.localDags, sourceFile: callee.sourceFile,
    dagRunId, params: referenceSecrets(params, ctx.passedSecrets), trigger: 'subdag',
    parent: { name: parent.spec.dagName, dagRunId: parent.spec.dagRunId }, root: parent.spec.root,
    workingDir: callee.definition.workingDir ? undefined : ctx.workingDir,
  });
  try {
    await deps.store.create(child);
  } catch (e) {
    if (!(e instanceof AlreadyExistsError)) throw e;
  }
  return child;
}

/** Asks a sub-DAG run to stop (it may have ended already: nothing to report then). */
export function stopChild(deps: EngineDeps, child: DagRunResource): void {
  void deps.store.requestStop({ dagName: child.spec.dagName, dagRunId: child.spec.dagRunId }).catch(() => undefined);
}

/**
 * Drives a sub-DAG run of `exec` to its end, shown on the step (its sub-runs) from start to end; returns
 * the ended run and what it gives back (subDagResult).
 */
export async function driveChild(env: SubDagEnv, exec: ExecRef, child: DagRunResource): Promise<{ done: DagRunResource; output: string }> {
  const { dagName: name, dagRunId, params } = child.spec;
  env.push({ type: 'subRun', exec, subRun: { dagRunId, name, params, status: RunStatus.Running } });
  const { run: done, params: evaluated } = await env.drive({ dagName: name, dagRunId }, env.ctx.childEnv, env.ctx.passedSecrets);
  env.push({ type: 'subRun', exec, subRun: { dagRunId, name, params, status: done.status.run.status } });
  // The child's params as it evaluated them hold the secrets' values: masked, as any output of the step.
  return { done, output: maskSecretForms(subDagResult(done, dagRunId, evaluated), env.ctx.secretValues) };
}

export async function runSubDag(env: SubDagEnv, call: SubDagCall): Promise<ExecResult> {
  const { deps, parent } = env;
  const { node, step, exec, built } = call;
  const callee = await findCallee(deps, parent, expandVars(step.call!, built.lookup));
  if ('error' in callee) return { exitCode: 1, error: callee.error };
  const item = exec.item !== undefined ? node.items?.find((i) => i.index === exec.item)?.item : undefined;
  const dagRunId = childRunId(parent, exec);
  const child = await createChild(env, callee, dagRunId, paramsString(step, built.lookup, item));
  env.setLive({ result: Promise.resolve({ exitCode: 0 }), signal: () => stopChild(deps, child) });
  const { done, output } = await driveChild(env, exec, child);
  const status = done.status.run.status;
  // As the reference does: the result is the calling step's stdout too.
  await deps.logs.append(execLogOf(parent, step, exec, 'stdout'), `${output}\n`);
  if (isRunSuccess(status)) return { exitCode: 0, output, ...(status === RunStatus.PartiallySucceeded ? { partial: true } : {}) };
  const aborted = status === RunStatus.Aborted ? { signal: 'SIGTERM' } : {};
  return { exitCode: 1, output, ...aborted, error: subRunFailure(dagRunId, status) };
}

/** Why a sub-DAG run that did not succeed failed its step. */
export const subRunFailure = (dagRunId: string, status: RunStatus): string => `sub-DAG run ${dagRunId} ${isRunTerminal(status) ? 'ended' : 'is'} with status ${runStatusLabel(status)}`;

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
