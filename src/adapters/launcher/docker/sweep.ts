/**
 * Containers left behind by an engine that died (ARCHITECTURE "level-triggered"): once per launcher, when
 * it first reaches the container engine, the containers this svc made (its owner label) whose execution
 * is over by the run store's word (a finished run, a later attempt, a run that is gone) are removed; those
 * of a run that is still active stay, for its driver to adopt. `keepContainer` ones always stay.
 */
import type Docker from 'dockerode';
import type { ExecIdentity } from '../../../core/naming.js';
import { LABELS, MANAGED_BY } from './container-spec.js';
import { removeContainer } from './containers.js';

/** Whether the run attempt an identity belongs to is over (its containers are no longer needed). */
export type AttemptOver = (identity: ExecIdentity) => Promise<boolean>;

export async function sweepContainers(docker: Docker, owner: string, over: AttemptOver): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`${LABELS.managedBy}=${MANAGED_BY}`, `${LABELS.owner}=${owner}`] } });
  const removed: string[] = [];
  for (const c of list) {
    if (c.Labels[LABELS.keep] === 'true') continue;
    const identity = parseIdentity(c.Labels[LABELS.identity]);
    if (!identity || !(await over(identity))) continue;
    const name = c.Names[0]?.replace(/^\//, '') ?? c.Id;
    await removeContainer(docker, name, identity);
    removed.push(name);
  }
  return removed;
}

function parseIdentity(text: string | undefined): ExecIdentity | undefined {
  try {
    const v = JSON.parse(text ?? '') as ExecIdentity;
    return typeof v.dagName === 'string' && typeof v.dagRunId === 'string' && typeof v.attemptId === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}
