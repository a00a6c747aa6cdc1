/**
 * What the agent knows of images, which it never pulls: a local directory standing for an image's
 * filesystem (image volumes), and an image's ENTRYPOINT and CMD (containers without a command).
 */
import type { Container } from './types.js';

/** ENTRYPOINT and CMD of an image, as its Dockerfile gives them (exec form), and its ENV. */
export interface ImageEntrypoint {
  entrypoint: string[];
  cmd?: string[];
  /** The image's environment (Dockerfile ENV): under the container's own env, over the agent's. */
  env?: Record<string, string>;
}

/** The repository of an image reference: without its digest or tag. */
export function imageRepository(ref: string): string {
  const noDigest = ref.split('@')[0] ?? ref;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/**
 * The argv of a container, with Kubernetes' rules: `command` replaces the image's ENTRYPOINT (its CMD is
 * then ignored), `args` replace its CMD (empty lists count as unset). An image without a known entrypoint runs command + args as given.
 * Only command and args get $(VAR) expansion (`expand`), as in Kubernetes. Empty: nothing to run.
 */
export function containerArgv(c: Container, entrypoints: Record<string, ImageEntrypoint>, expand: (s: string) => string): string[] {
  const own = (list: string[] | undefined): string[] => (list ?? []).map(expand);
  if (c.command?.length) return [...own(c.command), ...own(c.args)];
  const image = c.image ? entrypoints[imageRepository(c.image)] : undefined;
  if (!image) return own(c.args);
  return [...image.entrypoint, ...(c.args?.length ? own(c.args) : (image.cmd ?? []))];
}
