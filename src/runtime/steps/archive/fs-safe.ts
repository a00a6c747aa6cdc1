/**
 * File helpers shared by the archive and s3 step types: containment checks for paths that come from an
 * archive or a bucket, and atomic writes (a temp file beside the target, renamed over it), so a reader
 * never sees half a file and a failed or aborted step leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';

/** True when `target` is `root` or inside it (both absolute). */
export function isWithin(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A hidden, unique temp name in the same directory as `path` (a rename within one directory is atomic). */
export function tempSibling(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Creates the parent directories, lets `write` fill a temp file, then renames it to `path`. */
export async function writeAtomically<T>(path: string, write: (tmp: string) => Promise<T>): Promise<T> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempSibling(path);
  try {
    const result = await write(tmp);
    await rename(tmp, path);
    return result;
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** The message of an fs error without the noise of its syscall prefix, e.g. "ENOENT: no such file". */
export function fsReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ENOENT') return 'no such file or directory';
  if (err.code === 'EACCES' || err.code === 'EPERM') return 'permission denied';
  if (err.code === 'EISDIR') return 'is a directory';
  if (err.code === 'ENOTDIR') return 'a parent is not a directory';
  if (err.code === 'ENOSPC') return 'no space left on the device';
  return err instanceof Error ? err.message : String(e);
}
