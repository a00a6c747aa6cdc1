/**
 * Secrets a run resolves (SPEC 2.4), and those its caller passes to a sub-DAG run by reference (ADR 0028):
 * the child's stored params hold `${NAME}` where a caller's secret value was; the values reach the child
 * through memory when its caller drives it, or are resolved again from the caller's definition when the
 * child is driven on its own (taken over after a crash).
 */
import { dirname } from 'node:path';
import type { SecretContext } from '../../core/ports/engine-ports.js';
import type { DagRunResource } from '../../core/resources.js';
import type { EnvEntry, SecretRef } from '../../core/spec/types.js';
import type { EngineDeps } from '../deps.js';
import { Probes } from './probes.js';

export async function resolveSecrets(deps: EngineDeps, defs: readonly SecretRef[], ctx: SecretContext): Promise<EnvEntry[]> {
  const out: EnvEntry[] = [];
  for (const s of defs) out.push({ name: s.name, value: await deps.secrets.resolve(s.provider, s.key, s.options, ctx) });
  return out;
}

/** The secrets of the runs that called `run` (nearest first), resolved again; none for a root run or params that name none. */
export async function callerSecrets(deps: EngineDeps, run: DagRunResource): Promise<EnvEntry[]> {
  const out: EnvEntry[] = [];
  if (!run.spec.params.includes('${')) return out;
  let ref = run.spec.parent;
  // The call depth is bounded at validation; the bound here only guards against a cycle of references.
  for (let depth = 0; ref && depth < 64; depth++) {
    const caller = await deps.store.get({ dagName: ref.name, dagRunId: ref.dagRunId });
    if (!caller) break;
    // A nearer caller's secret hides a farther one's of the same name, as it does in its own runs.
    for (const s of await ownSecrets(deps, caller)) if (!out.some((o) => o.name === s.name)) out.push(s);
    ref = caller.spec.parent;
  }
  return out;
}

async function ownSecrets(deps: EngineDeps, run: DagRunResource): Promise<EnvEntry[]> {
  const defs = run.spec.definition.secrets;
  if (defs.length === 0) return [];
  const workingDir = run.spec.workingDir;
  const dagDir = run.spec.sourceFile ? dirname(run.spec.sourceFile) : workingDir;
  const probes = new Probes(deps, run);
  const read = (paths: string[]) => probes.readFirst(paths, { kind: 'secret', cwd: workingDir, env: { ...deps.systemEnv }, shell: [], unlogged: true });
  return resolveSecrets(deps, defs, { workingDir, dagDir, env: deps.systemEnv, read });
}
