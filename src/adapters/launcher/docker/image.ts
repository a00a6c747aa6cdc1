/**
 * Making sure a container's image is there (SPEC 2.5 `pullPolicy`): `missing` pulls only an image the
 * engine lacks, `always` pulls every time, `never` only checks. One pull per image at a time in this
 * process (parallel steps of one image wait for the same pull).
 */
import type Docker from 'dockerode';
import type { RegistryAuth } from './auth.js';

export interface ImageRequest {
  image: string;
  pullPolicy: 'always' | 'missing' | 'never';
  platform?: string | undefined;
  auth?: RegistryAuth | undefined;
}

const pulling = new Map<string, Promise<void>>();

export async function ensureImage(docker: Docker, r: ImageRequest): Promise<void> {
  if (r.pullPolicy !== 'always' && await hasImage(docker, r.image)) return;
  if (r.pullPolicy === 'never') throw new Error(`image ${r.image} is not present and its pullPolicy is never`);
  const key = `${r.image}\u0000${r.platform ?? ''}`;
  let p = pulling.get(key);
  if (!p) {
    p = pull(docker, r).finally(() => pulling.delete(key));
    pulling.set(key, p);
  }
  await p;
}

async function hasImage(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return false;
    throw e;
  }
}

/** A pull reports failures inside its progress stream as well as by status: both become one error. */
async function pull(docker: Docker, r: ImageRequest): Promise<void> {
  const opts = { ...(r.auth ? { authconfig: r.auth } : {}), ...(r.platform ? { platform: r.platform } : {}) };
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.pull(r.image, opts);
  } catch (e) {
    throw new Error(`cannot pull image ${r.image}: ${engineMessage(e)}`);
  }
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, events: Array<{ error?: string; errorDetail?: { message?: string } }>) => {
      const failed = err?.message ?? events.find((ev) => ev.error)?.error;
      if (failed) reject(new Error(`cannot pull image ${r.image}: ${failed}`));
      else resolve();
    });
  });
}

/** The engine's own words for a failed request (its JSON `message`), not dockerode's wrapper text. */
export function engineMessage(e: unknown): string {
  const x = e as { json?: { message?: string }; reason?: string; message?: string; statusCode?: number };
  return x.json?.message ?? x.reason ?? x.message ?? String(e);
}
