/** Creating DagRun resources: the spec snapshot and the initial status. */
import { dirname, isAbsolute, resolve } from 'node:path';
import { API_VERSION, type DagRunResource, type RunRef, type RunTrigger } from '../../core/resources.js';
import { newRunState } from '../../core/run/state.js';
import { RunStatus } from '../../core/run/status.js';
import { dagRunMetadata } from '../../core/naming.js';
import type { DagDefinition } from '../../core/spec/types.js';
import type { EngineDeps } from '../deps.js';
import { BadRequestError } from '../../core/errors.js';
import { startParamsProblem } from '../../core/vars/params.js';

export interface NewRunOptions {
  definition: DagDefinition;
  localDags: Record<string, DagDefinition>;
  sourceFile?: string | undefined;
  dagRunId: string;
  /** Overrides the DAG name used for identity (maxActiveRuns, queues, history). */
  dagName?: string;
  params: string;
  trigger: RunTrigger;
  queue?: string;
  parent?: RunRef;
  root?: RunRef;
  /** Working directory inherited from a parent (local sub-DAGs) or the caller's default. */
  workingDir?: string | undefined;
  extraEnv?: Record<string, string>;
  queued?: boolean;
}

/** SPEC 2.2 workingDir: relative to the DAG file's directory; default that directory (or the inherited one). */
export function resolveWorkingDir(def: DagDefinition, sourceFile: string | undefined, inherited: string | undefined, env: { cwd: string; home?: string | undefined }): string {
  const base = sourceFile ? dirname(sourceFile) : inherited ?? env.cwd;
  const home = env.home;
  if (!def.workingDir) return inherited ?? base;
  const wd = def.workingDir.startsWith('~') && home ? def.workingDir.replace(/^~/, home) : def.workingDir;
  return isAbsolute(wd) ? wd : resolve(base, wd);
}

/** Every run is created here (start, enqueue, retry as a new id, sub-DAG calls): its params are checked once. */
export function newRunResource(deps: EngineDeps, o: NewRunOptions): DagRunResource {
  const badName = startParamsProblem(o.params);
  if (badName) throw new BadRequestError(badName);
  const dagName = o.dagName ?? o.definition.name;
  const now = new Date(deps.clock.now()).toISOString();
  const attemptId = deps.ids.next();
  const key = { dagName, dagRunId: o.dagRunId };
  const root = o.root ?? { name: dagName, dagRunId: o.dagRunId };
  const run = newRunState(o.definition);
  if (o.queued) run.status = RunStatus.Queued;
  return {
    apiVersion: API_VERSION, kind: 'DagRun',
    metadata: { ...dagRunMetadata(key, root, o.parent), uid: '', resourceVersion: '', creationTimestamp: now },
    spec: {
      dagName, dagRunId: o.dagRunId, definition: o.definition, localDags: o.localDags, params: o.params, trigger: o.trigger,
      workingDir: resolveWorkingDir(o.definition, o.sourceFile, o.workingDir, { cwd: deps.cwd, home: deps.systemEnv.HOME }),
      root,
      ...(o.sourceFile ? { sourceFile: o.sourceFile } : {}), ...(o.queue ? { queue: o.queue } : {}),
      ...(o.parent ? { parent: o.parent } : {}), ...(o.extraEnv ? { extraEnv: o.extraEnv } : {}),
    },
    status: { attemptId, queuedAt: o.queued ? now : '', run },
  };
}
