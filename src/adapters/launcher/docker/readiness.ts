/**
 * Waiting until a started container is ready for its steps (SPEC 2.5 `waitFor`, `logPattern`): running,
 * or healthy by its image's healthcheck, and, with a logPattern, once its output has matched it. At most
 * READY_LIMIT_MS; a container that exits first fails the wait with its exit code and last output.
 */
import type Docker from 'dockerode';
import { Demuxer } from './demux.js';

export const READY_LIMIT_MS = 120_000;

export interface Readiness {
  waitFor: 'running' | 'healthy';
  logPattern?: string | undefined;
  limitMs?: number | undefined;
  /** Told once when a healthy wait falls back to running (the image has no healthcheck). */
  note?(text: string): void;
}

export async function waitReady(container: Docker.Container, r: Readiness): Promise<void> {
  const limit = r.limitMs ?? READY_LIMIT_MS;
  const pattern = r.logPattern ? compile(r.logPattern) : undefined;
  const deadline = Date.now() + limit;
  let noted = false;
  for (let i = 0; ; i++) {
    const info = await container.inspect();
    const state = info.State;
    if (!state.Running && !state.Restarting) {
      throw new Error(`container ${name(info)} exited with code ${state.ExitCode} before it was ready${await tail(container)}`);
    }
    const health = state.Health?.Status;
    if (r.waitFor === 'healthy' && !health && !noted) {
      noted = true;
      r.note?.(`container ${name(info)}: waitFor healthy, but its image defines no healthcheck: waiting for running only`);
    }
    const up = state.Running && (r.waitFor === 'running' || !health || health === 'healthy');
    if (up && (!pattern || pattern.test(await logs(container)))) return;
    if (Date.now() >= deadline) {
      const what = !up ? (r.waitFor === 'healthy' ? `healthy (health: ${health})` : 'running') : `matching logPattern ${r.logPattern}`;
      throw new Error(`container ${name(info)} was not ${what} within ${limit / 1000}s${await tail(container)}`);
    }
    await new Promise((res) => setTimeout(res, Math.min(250, 20 * 2 ** i)));
  }
}

/** When the engine refused an exec: the container's end, said plainly, if it has ended; else the engine's error. */
export async function whyExecFailed(container: Docker.Container, e: unknown): Promise<Error> {
  const info = await container.inspect().catch(() => undefined);
  if (!info || info.State.Running) return e instanceof Error ? e : new Error(String(e));
  return new Error(`container ${name(info)} exited with code ${info.State.ExitCode} before the step could run in it${await tail(container)}`);
}

function compile(p: string): RegExp {
  try {
    return new RegExp(p, 'm');
  } catch (e) {
    throw new Error(`logPattern ${p} is not a valid regular expression: ${(e as Error).message}`);
  }
}

const name = (info: Docker.ContainerInspectInfo): string => info.Name.replace(/^\//, '');

/** Everything the container wrote so far, both streams as text. */
export async function logs(container: Docker.Container, tailLines?: number): Promise<string> {
  const raw = await container.logs({ stdout: true, stderr: true, follow: false, ...(tailLines ? { tail: tailLines } : {}) }) as unknown as Buffer;
  let text = '';
  new Demuxer((_, data) => { text += data.toString('utf8'); }).push(raw);
  return text;
}

async function tail(container: Docker.Container): Promise<string> {
  const text = await logs(container, 20).catch(() => '');
  return text.trim() ? `; its last output:\n${text.trimEnd()}` : '';
}
