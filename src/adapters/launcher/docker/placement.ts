/**
 * Where a container step runs (SPEC 2.5):
 * - exec mode (`container: name` or `{exec: name}`): inside a running container of the user's;
 * - a DAG-level image: inside the run's one container, started by the first step that needs it;
 * - a step-level image: inside a container of its own for this execution.
 */
import type Docker from 'dockerode';
import type { ExecRequest } from '../../../core/ports/executor.js';
import type { ContainerConfig } from '../../../core/spec/types.js';
import { execName, type ExecIdentity } from '../../../core/naming.js';
import { expandVars } from '../../../core/vars/expand.js';
import type { StartMode } from './container-spec.js';

export type Target =
  | { kind: 'exec'; name: string; config: ContainerConfig }
  | { kind: 'run'; name: string; config: ContainerConfig; identity: ExecIdentity }
  | { kind: 'step'; name: string; config: ContainerConfig; identity: ExecIdentity };

/** The identity a run attempt's container is named and labelled from. */
export const runIdentity = (e: Pick<ExecIdentity, 'dagName' | 'dagRunId' | 'attemptId'>): ExecIdentity => (
  { dagName: e.dagName, dagRunId: e.dagRunId, attemptId: e.attemptId, node: '', attempt: 0, probe: 'run-container' }
);

/** The engine name of a container svc makes: the block's `name`, else one from the identity. */
export const containerName = (c: ContainerConfig, e: ExecIdentity): string => c.name ?? `svc-${execName(e)}`;

export function targetOf(req: ExecRequest): Target {
  const own = req.step.container && expandBlock(req.step.container, req.env);
  const config = own ?? (req.container && expandBlock(req.container, req.env));
  if (!config) throw new Error('a container step without a container block (the step\'s or the DAG\'s)');
  if (config.exec !== undefined) return { kind: 'exec', name: config.exec, config };
  if (own) return { kind: 'step', name: containerName(own, req.identity), config: own, identity: req.identity };
  const identity = runIdentity(req.identity);
  return { kind: 'run', name: containerName(config, identity), config, identity };
}

/** How the block's container starts: a step-level block with no step command runs as the step itself. */
export function startMode(t: Target, stepHasCommands: boolean): StartMode {
  if (t.kind === 'step' && !stepHasCommands) return 'task';
  return t.config.startup;
}

/** The running container of exec mode, or an error that says what is wrong with it. */
export async function execModeContainer(docker: Docker, name: string): Promise<Docker.Container> {
  let info: Docker.ContainerInspectInfo;
  try {
    info = await docker.getContainer(name).inspect();
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) throw new Error(`container ${name} does not exist (exec mode runs steps in a running container)`);
    throw e;
  }
  if (!info.State.Running) throw new Error(`container ${name} is not running (${info.State.Status}): exec mode runs steps in a running container`);
  return docker.getContainer(info.Id);
}

/**
 * `${VAR}` in the block's names and paths (image, name, exec, env, volumes, workingDir, platform, user,
 * ports, network) reads the step's variables (params, env, secrets). Its `command`, `shell` and
 * `logPattern` are left as written: they are the container's own text, for its own shell.
 */
export function expandBlock(c: ContainerConfig, env: Record<string, string>): ContainerConfig {
  const x = (s: string): string => expandVars(s, (n) => env[n]);
  const opt = (s: string | undefined): string | undefined => (s === undefined ? undefined : x(s));
  return {
    ...c, env: c.env.map(x), volumes: c.volumes.map(x), ports: c.ports.map(x),
    ...defined({ image: opt(c.image), name: opt(c.name), exec: opt(c.exec), workingDir: opt(c.workingDir), platform: opt(c.platform), user: opt(c.user), network: opt(c.network) }),
  };
}

const defined = <T extends Record<string, string | undefined>>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
