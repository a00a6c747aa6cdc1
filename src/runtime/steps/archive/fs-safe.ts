/**
 * File helpers shared by the archive and s3 step types: containment checks for paths that come from an
 * archive or a bucket, and atomic writes (a temp file beside the target, renamed over it), so a reader
 * never sees half a file and a failed or aborted step leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, realpath, rename, rm } from 'node:fs/promises';
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

/** Why a directory path could not be made inside a root: a symlink on it leads out, or a file is in the way. */
export class PathBlocked extends Error {
  constructor(readonly segment: string, readonly reason: 'symlink' | 'file') {
    super(reason === 'symlink' ? `"${segment}" on its path is a symlink that leads out` : `${segment} is in the way (not a directory)`);
  }
}

/**
 * Makes each directory of `segments` under `root` (a real path) one by one, so no directory is ever made
 * through a symlink that leads out (mkdir -p would follow it first and check after); a link on the way is
 * fine while its real path stays inside. `checked` remembers directories already seen. Returns the last.
 */
export async function ensureDirsWithin(root: string, segments: string[], checked: Set<string>): Promise<string> {
  let dir = root;
  for (const [i, seg] of segments.entries()) {
    dir = join(dir, seg);
    if (checked.has(dir)) continue;
    const st = await lstat(dir).catch(() => undefined);
    if (!st) await mkdir(dir).catch((e: NodeJS.ErrnoException) => { if (e.code !== 'EEXIST') throw e; });
    else if (st.isSymbolicLink() && !isWithin(root, await realpath(dir))) throw new PathBlocked(seg, 'symlink');
    else if (!st.isSymbolicLink() && !st.isDirectory()) throw new PathBlocked(segments.slice(0, i + 1).join('/'), 'file');
    checked.add(dir);
  }
  return dir;
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
