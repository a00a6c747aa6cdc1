/**
 * Writes one checked entry under the destination root (a real path). Beyond the name checks of
 * entry-path.ts, every directory on the way is checked as it is made: a symlink on the path (one the
 * archive made earlier, or one already there) must resolve inside the root, so no write goes through a
 * link to the outside. Files are created exclusively (never written through an existing link); one that
 * exists is replaced only with `overwrite`.
 */
import { createWriteStream } from 'node:fs';
import { link, lstat, realpath, rm, symlink, unlink, utimes } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { StepError } from '../runner.js';
import { entrySegments, outside } from './entry-path.js';
import type { ArchiveEntry } from './entry.js';
import { ensureDirsWithin, fsReason, isWithin, PathBlocked } from './fs-safe.js';

export interface Destination {
  /** The destination directory's real path. */
  root: string;
  overwrite: boolean;
  stripComponents: number;
  signal: AbortSignal;
  /** Directories already checked (their real paths are inside the root). */
  checked: Set<string>;
}

/** ensureDirsWithin, with a blocked path reported against the entry. */
async function ensureDirs(d: Destination, segments: string[], entry: string): Promise<string> {
  try {
    return await ensureDirsWithin(d.root, segments, d.checked);
  } catch (e) {
    if (!(e instanceof PathBlocked)) throw e;
    if (e.reason === 'symlink') throw outside(entry, e.message);
    throw new StepError(`archive step: cannot extract "${entry}": ${e.message}`);
  }
}

/** Clears the way for a new file or link: refused without overwrite, a directory is never replaced. */
async function clear(d: Destination, at: string, rel: string): Promise<void> {
  const st = await lstat(at).catch(() => undefined);
  if (!st) return;
  if (!d.overwrite) throw new StepError(`archive step: ${rel} already exists in the destination (set overwrite: true to replace it)`);
  if (st.isDirectory()) throw new StepError(`archive step: cannot replace the directory ${rel} with a file`);
  await unlink(at);
}

async function writeFile(d: Destination, at: string, e: ArchiveEntry): Promise<number> {
  const out = createWriteStream(at, { flags: 'wx', mode: (e.mode & 0o777) || 0o644 });
  try {
    await pipeline(await e.content(), out, { signal: d.signal });
  } catch (err) {
    out.destroy();
    await rm(at, { force: true });
    throw err;
  }
  if (e.mtime) await utimes(at, e.mtime, e.mtime).catch(() => undefined);
  return out.bytesWritten;
}

async function writeSymlink(d: Destination, at: string, e: ArchiveEntry): Promise<void> {
  const target = e.linkTarget ?? '';
  if (target === '' || isAbsolute(target)) throw outside(e.name, `it is a symlink to "${target}", not a relative path`);
  if (!isWithin(d.root, resolve(dirname(at), target))) throw outside(e.name, `it is a symlink to "${target}"`);
  await symlink(target, at);
  // Lexically inside, but a `..` through another link can still lead out: check where it really goes.
  const real = await realpath(at).catch(() => undefined);
  if (real !== undefined && !isWithin(d.root, real)) {
    await unlink(at);
    throw outside(e.name, `it is a symlink to "${target}", which resolves outside`);
  }
}

/** The segments of the entry a hard link repeats (before stripping); refused like a name when unsafe. */
export function hardlinkSegments(e: ArchiveEntry): string[] {
  try {
    return entrySegments(e.linkTarget ?? '');
  } catch {
    throw outside(e.name, `it is a hard link to "${e.linkTarget}"`);
  }
}

async function writeHardlink(d: Destination, at: string, e: ArchiveEntry): Promise<boolean> {
  const target = e.linkTarget ?? '';
  const segments = hardlinkSegments(e).slice(d.stripComponents);
  if (segments.length === 0) return false;
  const from = join(d.root, ...segments);
  if (!isWithin(d.root, await realpath(dirname(from)).catch(() => d.root))) throw outside(e.name, `it is a hard link to "${target}"`);
  await link(from, at);
  return true;
}

/** Writes the entry at `segments` (already stripped and filtered); the bytes written and whether it counted. */
export async function writeEntry(d: Destination, segments: string[], e: ArchiveEntry): Promise<{ bytes: number; written: boolean }> {
  const rel = segments.join('/');
  const parent = await ensureDirs(d, segments.slice(0, -1), e.name);
  const at = join(parent, segments[segments.length - 1]!);
  try {
    if (e.type === 'dir') {
      await ensureDirs(d, segments, e.name);
      return { bytes: 0, written: false };
    }
    await clear(d, at, rel);
    if (e.type === 'file') return { bytes: await writeFile(d, at, e), written: true };
    if (e.type === 'symlink') await writeSymlink(d, at, e);
    else return { bytes: 0, written: await writeHardlink(d, at, e) };
    return { bytes: 0, written: true };
  } catch (err) {
    // Only a file system error is about writing; damage of the archive is reported by the reader.
    if (d.signal.aborted || !(err as NodeJS.ErrnoException).syscall) throw err;
    throw new StepError(`archive step: cannot write ${rel}: ${fsReason(err)}`);
  }
}
