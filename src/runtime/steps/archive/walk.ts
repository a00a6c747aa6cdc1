/**
 * What `create` puts in an archive: the source file, or the source directory and everything under it,
 * named as the reference names them: a directory's entries start with the directory's own name
 * ("data/sub/a.txt" for source "data"; extract with stripComponents: 1 to drop it). Symlinks are stored
 * as links, never followed; sockets and devices are left out. Sorted, so the same tree gives the same
 * archive. The include/exclude filters apply to these names.
 */
import type { Stats } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { selected } from './entry-path.js';
import type { EntryType } from './entry.js';

export interface SourceItem {
  /** Absolute path on disk. */
  path: string;
  /** Name in the archive. */
  name: string;
  type: Exclude<EntryType, 'hardlink' | 'other'>;
  size: number;
  mode: number;
  mtime: Date;
  linkTarget?: string;
}

export interface WalkOptions {
  include: string[];
  exclude: string[];
  /** Paths never archived (the archive being written, when it lies inside the source). */
  skip: (path: string) => boolean;
}

async function item(path: string, name: string, st: Stats): Promise<SourceItem | undefined> {
  const base = { path, name, size: 0, mode: st.mode & 0o7777, mtime: st.mtime };
  if (st.isDirectory()) return { ...base, type: 'dir' };
  if (st.isFile()) return { ...base, type: 'file', size: st.size };
  if (st.isSymbolicLink()) return { ...base, type: 'symlink', linkTarget: await readlink(path) };
  return undefined;
}

async function walkDir(dir: string, name: string, o: WalkOptions, out: SourceItem[]): Promise<void> {
  const names = (await readdir(dir)).sort();
  for (const n of names) {
    const path = join(dir, n);
    if (o.skip(path)) continue;
    const st = await lstat(path);
    const it = await item(path, `${name}/${n}`, st);
    if (it && selected(it.name, o.include, o.exclude)) out.push(it);
    if (st.isDirectory()) await walkDir(path, it?.name ?? `${name}/${n}`, o, out);
  }
}

/** The items of a source whose stats (following a symlink given as the source itself) are `st`. */
export async function collect(source: string, st: Stats, o: WalkOptions): Promise<SourceItem[]> {
  const name = basename(source);
  const top = await item(source, name, st);
  const out = top && selected(name, o.include, o.exclude) ? [top] : [];
  if (st.isDirectory()) await walkDir(source, name, o, out);
  return out;
}
