/**
 * The container engine behind the Docker Engine API (Docker, or Podman's Docker-compatible service): where
 * its socket is, and one client for it. The address comes from DOCKER_HOST (unix:// or tcp://), else the
 * first of the usual socket paths that answers a ping. A missing engine is a step error that names every
 * place tried, never a crash; it is looked for again on the next step (an engine started later is found).
 */
import { existsSync } from 'node:fs';
import type Docker from 'dockerode';

/** Where to look, in order, when DOCKER_HOST is not set. */
export function defaultSockets(env: Record<string, string | undefined>): string[] {
  const xdg = env.XDG_RUNTIME_DIR;
  return ['/var/run/docker.sock', ...(xdg ? [`${xdg}/podman/podman.sock`, `${xdg}/docker.sock`] : []), '/run/podman/podman.sock'];
}

/** One way to reach an engine: a unix socket path, or a TCP host and port (plain HTTP). */
export type EngineAddress = { socketPath: string } | { host: string; port: number; protocol: 'http' };

/** DOCKER_HOST as an address; a value svc cannot use is an error that says why. */
export function parseDockerHost(value: string): EngineAddress {
  if (value.startsWith('unix://')) return { socketPath: value.slice('unix://'.length) };
  const tcp = /^tcp:\/\/([^:/]+):(\d+)\/?$/.exec(value);
  if (tcp) return { host: tcp[1]!, port: Number(tcp[2]), protocol: 'http' };
  throw new NoEngineError(`DOCKER_HOST=${value} is not a unix:///path or tcp://host:port address`);
}

export const describeAddress = (a: EngineAddress): string => ('socketPath' in a ? `unix://${a.socketPath}` : `tcp://${a.host}:${a.port}`);

/** No engine could be reached: the message says where svc looked and how to point it at one. */
export class NoEngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoEngineError';
  }
}

/** An engine that does not answer a ping in this time is not used. */
const PING_TIMEOUT_MS = 5000;

/** How long a failed look-up is trusted before the next step looks again. */
const RETRY_AFTER_MS = 2000;

/** dockerode takes an abort signal for ping; its published types predate that. */
interface Pingable { ping(o: { abortSignal: AbortSignal }): Promise<unknown> }

export class ContainerEngine {
  private client: Promise<Docker> | undefined;
  private failedAt = 0;

  constructor(private readonly env: Record<string, string | undefined>) {}

  /** The client of a reachable engine; rejects with a NoEngineError naming what was tried. */
  get(): Promise<Docker> {
    if (this.client && !(this.failedAt > 0 && Date.now() - this.failedAt > RETRY_AFTER_MS)) return this.client;
    this.failedAt = 0;
    const found = this.connect();
    this.client = found;
    found.catch(() => { this.failedAt = Date.now(); });
    return found;
  }

  private async connect(): Promise<Docker> {
    const host = this.env.DOCKER_HOST;
    const candidates: EngineAddress[] = host ? [parseDockerHost(host)] : defaultSockets(this.env).map((socketPath) => ({ socketPath }));
    const tried: string[] = [];
    // Loaded on the first container step only: the client brings http, tls and http2 along, which a
    // command that runs no container should not load (bin/svc.js starts commands from a code cache).
    const { default: DockerClient } = await import('dockerode');
    for (const a of candidates) {
      if ('socketPath' in a && !existsSync(a.socketPath)) {
        tried.push(`${describeAddress(a)} (no such file)`);
        continue;
      }
      const docker = new DockerClient(a);
      try {
        await (docker as unknown as Pingable).ping({ abortSignal: AbortSignal.timeout(PING_TIMEOUT_MS) });
        return docker;
      } catch (e) {
        tried.push(`${describeAddress(a)} (${(e as Error).message})`);
      }
    }
    const how = host ? 'DOCKER_HOST' : 'the usual sockets (set DOCKER_HOST to name another)';
    throw new NoEngineError(`no container engine reachable through ${how}: tried ${tried.join(', ')}. Start Docker, or Podman's API service (podman system service), and point DOCKER_HOST at its socket`);
  }
}
