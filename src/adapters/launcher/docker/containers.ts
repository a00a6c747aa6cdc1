/**
 * Creating, starting and removing the containers svc owns. Names come from the execution identity, so a
 * second ensure (a parallel step, a restarted engine) finds the container instead of making another:
 * "already exists" means adopt, when its identity label says it is ours.
 */
import type Docker from 'dockerode';
import type { ContainerConfig } from '../../../core/spec/types.js';
import type { ExecIdentity } from '../../../core/naming.js';
import { authFor, type RegistryAuths } from './auth.js';
import { createBody, LABELS, type SpecInput } from './container-spec.js';
import { engineMessage, ensureImage } from './image.js';
import { waitReady } from './readiness.js';

export interface EnsureContext {
  docker: Docker;
  registryAuths?: RegistryAuths | undefined;
  /** DOCKER_AUTH_CONFIG of svc's environment. */
  authConfig?: string | undefined;
  readyLimitMs?: number | undefined;
  note(text: string): void;
}

const isStatus = (e: unknown, code: number): boolean => (e as { statusCode?: number }).statusCode === code;

/** The container of this name, or undefined when the engine has none. */
export async function inspectByName(docker: Docker, name: string): Promise<Docker.ContainerInspectInfo | undefined> {
  try {
    return await docker.getContainer(name).inspect();
  } catch (e) {
    if (isStatus(e, 404)) return undefined;
    throw e;
  }
}

/** Pulls as the pullPolicy says, creates (or adopts), starts and waits until ready. */
export async function ensureStarted(ctx: EnsureContext, s: SpecInput): Promise<Docker.Container> {
  const { docker } = ctx;
  let info = await inspectByName(docker, s.name);
  if (info) ownedOrThrow(info, s);
  else info = await create(ctx, s);
  const container = docker.getContainer(info.Id);
  if (!info.State.Running) await start(container, s.name);
  if (s.mode !== 'task') await waitReady(container, { waitFor: s.config.waitFor, logPattern: s.config.logPattern, limitMs: ctx.readyLimitMs, note: ctx.note });
  return container;
}

async function create(ctx: EnsureContext, s: SpecInput): Promise<Docker.ContainerInspectInfo> {
  const c: ContainerConfig = s.config;
  if (!c.image) throw new Error('the container block names no image');
  await ensureImage(ctx.docker, { image: c.image, pullPolicy: c.pullPolicy, platform: c.platform, auth: authFor(c.image, ctx.registryAuths, ctx.authConfig) });
  const query = { name: s.name, ...(c.platform ? { platform: c.platform } : {}) };
  const body = createBody(s);
  try {
    // Name and platform in the query only: dockerode would otherwise also send the whole body (Env and
    // all) as query parameters, into the engine's request logs.
    await ctx.docker.createContainer({ _query: query, _body: body } as unknown as Docker.ContainerCreateOptions);
  } catch (e) {
    if (!isStatus(e, 409)) throw new Error(`cannot create container ${s.name} from ${c.image}: ${engineMessage(e)}`);
  }
  const info = await inspectByName(ctx.docker, s.name);
  if (!info) throw new Error(`container ${s.name} vanished as it was created`);
  ownedOrThrow(info, s);
  return info;
}

async function start(container: Docker.Container, name: string): Promise<void> {
  try {
    await container.start();
  } catch (e) {
    // 304: already started (by a parallel step of the same run).
    if (!isStatus(e, 304)) throw new Error(`cannot start container ${name}: ${engineMessage(e)}`);
  }
}

/** A container of that name that is not this execution's (a user's, or another run's) is never used. */
function ownedOrThrow(info: Docker.ContainerInspectInfo, s: SpecInput): void {
  const identity = info.Config.Labels?.[LABELS.identity];
  if (identity !== JSON.stringify(s.identity)) {
    throw new Error(`a container named ${s.name} already exists and is not this ${s.role === 'run' ? 'run' : 'step'}'s: remove it or choose another container name`);
  }
}

/** Removes this identity's container (stopping it first, by force); one already gone, or not ours, stays as it is. */
export async function removeContainer(docker: Docker, name: string, identity: ExecIdentity): Promise<void> {
  const info = await inspectByName(docker, name);
  if (!info || info.Config.Labels?.[LABELS.identity] !== JSON.stringify(identity)) return;
  try {
    await docker.getContainer(info.Id).remove({ force: true, v: true });
  } catch (e) {
    if (!isStatus(e, 404) && !isStatus(e, 409)) throw new Error(`cannot remove container ${name}: ${engineMessage(e)}`);
  }
}
