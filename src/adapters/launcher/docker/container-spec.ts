/**
 * The create request of a container from a `container` block (SPEC 2.5): image, env, volumes (relative
 * host paths against the DAG's workingDir), workingDir, user, ports, network, restartPolicy, and what it
 * runs first (`startup`). Labelled with the execution identity, so a restarted engine finds its own.
 */
import { isAbsolute, resolve } from 'node:path';
import type { ContainerConfig } from '../../../core/spec/types.js';
import { labelValue, SVC_LABELS, type ExecIdentity } from '../../../core/naming.js';
import { PORT_PATTERN, portProblem, volumeProblem } from '../../../core/spec/container-checks.js';

export const LABELS = {
  managedBy: 'svc.io/managed-by', role: 'svc.io/container-role', attempt: 'svc.io/attempt', identity: 'svc.io/identity',
  owner: 'svc.io/owner', keep: 'svc.io/keep',
} as const;
export const MANAGED_BY = 'svc-embedded';

/**
 * Keeps a `keepalive` container running without its image's entrypoint: a shell that sleeps until told to
 * stop (as PID 1 a shell has no default action for SIGTERM, hence the trap). Steps are exec'd beside it.
 */
export const KEEPALIVE = ['/bin/sh', '-c', "trap 'exit 0' TERM INT; while :; do sleep 86400 & wait $!; done"];

/**
 * What the container runs: `keepalive` the shell above, `entrypoint` the image's own entrypoint and
 * command, `command` the block's command after the image's entrypoint. `task`: the container's own
 * process is the step (a step-level container whose block's command runs, or the image as it is).
 */
export type StartMode = 'keepalive' | 'entrypoint' | 'command' | 'task';

export interface SpecInput {
  name: string;
  config: ContainerConfig;
  identity: ExecIdentity;
  role: 'run' | 'step';
  /** Which svc made it (its data directory's id): another svc's containers are never swept away by this one. */
  owner: string;
  /** The DAG's workingDir on this machine: relative host paths of volumes resolve against it. */
  hostDir: string;
  mode: StartMode;
}

/** The body of POST /containers/create (the name and platform go in its query). */
export function createBody(s: SpecInput): Record<string, unknown> {
  const c = s.config;
  const ports = portBindings(c.ports);
  return {
    Image: c.image, Labels: labels(s), Env: c.env,
    ...(c.workingDir ? { WorkingDir: c.workingDir } : {}),
    ...(c.user ? { User: c.user } : {}),
    ...startCommand(s.mode, c),
    ...(ports.exposed ? { ExposedPorts: ports.exposed } : {}),
    HostConfig: {
      Binds: c.volumes.map((v) => bind(v, s.hostDir)),
      ...(ports.bindings ? { PortBindings: ports.bindings } : {}),
      ...(c.network ? { NetworkMode: c.network } : {}),
      // A task is one run of the step: restarting it would run the step again.
      RestartPolicy: { Name: s.mode === 'task' ? 'no' : c.restartPolicy },
    },
  };
}

function startCommand(mode: StartMode, c: ContainerConfig): Record<string, unknown> {
  if (mode === 'keepalive') return { Entrypoint: KEEPALIVE, Cmd: [] };
  if (mode === 'command' || (mode === 'task' && c.command.length > 0)) return { Cmd: c.command };
  return {};
}

export function labels(s: Pick<SpecInput, 'identity' | 'role' | 'owner' | 'config'>): Record<string, string> {
  const e = s.identity;
  return {
    [LABELS.managedBy]: MANAGED_BY, [LABELS.role]: s.role, [LABELS.owner]: s.owner,
    ...(s.config.keepContainer ? { [LABELS.keep]: 'true' } : {}),
    [SVC_LABELS.dag]: labelValue(e.dagName), [SVC_LABELS.dagRun]: labelValue(e.dagRunId), [LABELS.attempt]: labelValue(e.attemptId),
    [LABELS.identity]: JSON.stringify(e),
  };
}

/**
 * `host:container[:ro|rw]`. A host part that is absolute, or starts with `.` or holds a `/`, is a path
 * (relative ones against the DAG's workingDir); a bare word is a named volume, as Docker reads it.
 */
export function bind(spec: string, hostDir: string): string {
  const why = volumeProblem(spec);
  if (why) throw new Error(`volume ${why}`);
  const parts = spec.split(':');
  const mode = parts[2];
  const host = parts[0]!;
  const path = isAbsolute(host) || !(host.startsWith('.') || host.includes('/')) ? host : resolve(hostDir, host);
  return [path, parts[1], ...(mode ? [mode] : [])].join(':');
}

type Bindings = Record<string, Array<{ HostIp?: string; HostPort?: string }>>;

/**
 * `ports` items as `docker run -p` reads them: `80` (a free host port), `8080:80`, `127.0.0.1:8080:80`,
 * each with an optional `/tcp` or `/udp`.
 */
export function portBindings(items: string[]): { exposed?: Record<string, object>; bindings?: Bindings } {
  if (items.length === 0) return {};
  const exposed: Record<string, object> = {};
  const bindings: Bindings = {};
  for (const item of items) {
    const m = PORT_PATTERN.exec(item.trim());
    if (!m) throw new Error(`port ${portProblem(item)}`);
    const key = `${m[3]}/${m[4] ?? 'tcp'}`;
    exposed[key] = {};
    (bindings[key] ??= []).push({ ...(m[1] ? { HostIp: m[1].replace(/^\[|\]$/g, '') } : {}), HostPort: m[2] ?? '' });
  }
  return { exposed, bindings };
}
