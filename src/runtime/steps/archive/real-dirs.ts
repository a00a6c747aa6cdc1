/**
 * The directories of an extracted entry, made or found one component at a time with lstat: each must
 * be a real directory, never a symlink, whoever made it (the archive earlier, or the destination
 * before). mkdir does not follow a link in its last component, and the entry itself is created with
 * O_EXCL (or symlink/link, which do not follow either), so no sequence of entries writes through a link:
 * a link replaced or planted between entries is seen when the next entry's path is walked, because
 * nothing is remembered between entries. (A process other than the step changing the destination
 * while it extracts is outside what this guards.)
 */
import { lstat, mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Why a path could not be walked: a symlink or a file where a directory must be. */
export class NotADirectory extends Error {
  constructor(readonly segment: string, readonly reason: 'symlink' | 'file') {
    super(reason === 'symlink'
      ? `"${segment}" on its path is a symlink (extraction never writes through a link)`
      : `${segment} is in the way (not a directory)`);
  }
}

/** How a directory that is a symlink is handled: refused, or (a directory entry with overwrite) replaced. */
type OnLink = 'refuse' | 'replace';

async function realDir(path: string, shown: string, onLink: OnLink): Promise<void> {
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => { if (e.code === 'ENOENT') return undefined; throw e; });
  if (st?.isDirectory()) return;
  if (st?.isSymbolicLink() && onLink === 'replace') await unlink(path);
  else if (st) throw new NotADirectory(shown, st.isSymbolicLink() ? 'symlink' : 'file');
  await mkdir(path).catch(async (e: NodeJS.ErrnoException) => {
    // Made meanwhile: fine only if what is there now is a real directory.
    if (e.code !== 'EEXIST' || !(await lstat(path)).isDirectory()) throw e;
  });
}

/**
 * Makes (or finds) each directory of `segments` under `root` as a real directory; returns the last.
 * `lastOnLink`: what to do when the last one is a symlink (the others always refuse).
 */
export async function makeRealDirs(root: string, segments: string[], lastOnLink: OnLink = 'refuse'): Promise<string> {
  let dir = root;
  for (const [i, seg] of segments.entries()) {
    dir = join(dir, seg);
    await realDir(dir, segments.slice(0, i + 1).join('/'), i === segments.length - 1 ? lastOnLink : 'refuse');
  }
  return dir;
}

/** Whether every directory of `segments` under `root` exists as a real directory (none is a link). */
export async function realDirsExist(root: string, segments: string[]): Promise<boolean> {
  let dir = root;
  for (const seg of segments) {
    dir = join(dir, seg);
    const st = await lstat(dir).catch(() => undefined);
    if (!st?.isDirectory()) return false;
  }
  return true;
}
