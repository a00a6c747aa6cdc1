/**
 * Writes one checked entry under the destination root (a real path). Beyond the name checks of
 * entry-path.ts, every directory on the way is walked per entry with lstat and must be a real directory
 * (real-dirs.ts): a symlink on the path, one the archive made earlier or one already there, fails the
 * entry, so no write goes through a link. Files are created exclusively (never written through an
 * existing link); one that exists is replaced only with `overwrite`, and so is a link where a directory
 * entry goes. Bytes are counted as they are written, against the step's budget.
 */
import { createWriteStream } from 'node:fs';
import { link, lstat, realpath, rm, symlink, unlink, utimes } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StepError } from '../runner.js';
import { entrySegments, outside } from './entry-path.js';
import type { ArchiveEntry } from './entry.js';
import { fsReason, isWithin } from './fs-safe.js';
import { makeRealDirs, NotADirectory, realDirsExist } from './real-dirs.js';

export interface Destination {
  /** The destination directory's real path. */
  root: string;
  overwrite: boolean;
  stripComponents: number;
  signal: AbortSignal;
  /** Bytes all files may still take (the decompression budget); counted down as they are written. */
  bytesLeft: number;
  maxBytes: number;
}

/** makeRealDirs, with a blocked path reported against the entry. */
async function ensureDirs(d: Destination, segments: string[], entry: string, replaceLink = false): Promise<string> {
  try {
    return await makeRealDirs(d.root, segments, replaceLink && d.overwrite ? 'replace' : 'refuse');
  } catch (e) {
    if (!(e instanceof NotADirectory)) throw e;
    throw new StepError(`archive step: cannot extract "${entry}": ${e.message}`);
  }
}

/** Counts the bytes of a file against the budget; past it the write fails (a "zip bomb", or a header that lies). */
function budget(d: Destination): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      d.bytesLeft -= chunk.length;
      if (d.bytesLeft < 0) done(new StepError(`archive step: the archive expands to more than ${d.maxBytes} bytes (config.maxBytes): refused`));
      else done(null, chunk);
    },
  });
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
    await pipeline(await e.content(), budget(d), out, { signal: d.signal });
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
  // The linked entry's directories are real ones (no link on the way): link() itself does not follow its last component.
  if (!(await realDirsExist(d.root, segments.slice(0, -1)))) throw outside(e.name, `it is a hard link to "${target}" through a link or a missing directory`);
  await link(join(d.root, ...segments), at);
  return true;
}

/** Writes the entry at `segments` (already stripped and filtered); the bytes written and whether it counted. */
export async function writeEntry(d: Destination, segments: string[], e: ArchiveEntry): Promise<{ bytes: number; written: boolean }> {
  const rel = segments.join('/');
  const parent = await ensureDirs(d, segments.slice(0, -1), e.name);
  const at = join(parent, segments[segments.length - 1]!);
  try {
    if (e.type === 'dir') {
      await ensureDirs(d, segments, e.name, true);
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
