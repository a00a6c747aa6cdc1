/**
 * Opens files under a store's root that code we do not control can write to (a step's run directory,
 * the shared log volume), without following a link or opening anything but a regular file.
 *
 * Every directory between the root and the file is lstat'ed (a link or a non-directory there is refused),
 * the file is opened with O_NOFOLLOW (a link as its last component fails) and O_NONBLOCK (a planted FIFO
 * never blocks the open), and the descriptor is checked: a regular file with one name (a hard link to
 * another file is refused too). Where /proc is mounted, the descriptor's own path must be the expected one
 * under the root's real path, which closes the race between the lstat walk and the open.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, read, readlinkSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { readHeadOfFd } from './atomic.js';

/** A name in a store's tree is a link, a device, a FIFO, a directory or a hard link where a file of ours belongs. */
export class PlantedFileError extends Error {
  readonly code = 'EPLANTED';

  constructor(readonly path: string, what: string) {
    super(`${path} is ${what}, not a file svc wrote: it is neither followed nor read`);
    this.name = 'PlantedFileError';
  }
}

export const isPlanted = (err: unknown): boolean => err instanceof PlantedFileError;

/** A planted file is no file of ours: it reads as absent. */
export async function absentIfPlanted<T>(read: Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await read;
  } catch (e) {
    if (isPlanted(e)) return undefined;
    throw e;
  }
}

const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The root's real path, taken once: a root replaced by a link later no longer matches. */
const realRoots = new Map<string, string>();
const hasProcFd = (() => {
  try { return lstatSync('/proc/self/fd').isDirectory(); } catch { return false; }
})();

const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

/** The path's components below root; refuses a path outside it. */
function partsUnder(root: string, path: string): string[] {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${path} is not under ${root}`);
  return rel.split(sep);
}

/**
 * Checks each directory between root and the last component: false when one is missing (and `create` is
 * off); a missing one is created (never through a link: mkdir does not follow its last component).
 */
function walkDirs(root: string, parts: string[], create: boolean): boolean {
  let dir = root;
  if (create) mkdirSync(root, { recursive: true });
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    let st;
    try {
      st = lstatSync(dir);
    } catch (err) {
      if (code(err) !== 'ENOENT' && code(err) !== 'ENOTDIR') throw err;
      if (!create) return false;
      try { mkdirSync(dir); } catch (e) { if (code(e) !== 'EEXIST') throw e; }
      st = lstatSync(dir);
    }
    if (st.isSymbolicLink()) throw new PlantedFileError(dir, 'a link');
    if (!st.isDirectory()) throw new PlantedFileError(dir, 'not a directory');
  }
  return true;
}

function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    real = realpathSync(root);
    realRoots.set(root, real);
  }
  return real;
}

/** The descriptor is a regular file with one name, at the expected place: else it is closed and refused. */
function checkFd(fd: number, root: string, path: string, parts: string[]): void {
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new PlantedFileError(path, 'not a regular file');
    if (st.nlink > 1) throw new PlantedFileError(path, 'a hard link');
    if (hasProcFd && readlinkSync(`/proc/self/fd/${fd}`) !== join(realRoot(root), ...parts)) {
      throw new PlantedFileError(path, 'reached through a link');
    }
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function openChecked(root: string, path: string, flags: number, create: boolean): number | undefined {
  const parts = partsUnder(root, path);
  if (!walkDirs(root, parts, create)) return undefined;
  let fd: number;
  try {
    fd = openSync(path, flags, 0o644);
  } catch (err) {
    const c = code(err);
    if (c === 'ENOENT' && !create) return undefined;
    if (c === 'ELOOP') throw new PlantedFileError(path, 'a link');
    if (c === 'EISDIR' || c === 'ENXIO' || c === 'ENOTDIR') throw new PlantedFileError(path, 'not a regular file');
    throw err;
  }
  checkFd(fd, root, path, parts);
  return fd;
}

/** A descriptor to read `path` (under `root`), or undefined when it does not exist. */
export function openForRead(root: string, path: string): number | undefined {
  return openChecked(root, path, READ, false);
}

/** A descriptor to append to `path` (under `root`), creating it and its directories. */
export function openForAppend(root: string, path: string): number {
  return openChecked(root, path, APPEND, true) as number;
}

/** Whether the directories down to `path`'s (under `root`) all exist; PlantedFileError for a link on the way. */
export function dirsUnder(root: string, path: string): boolean {
  return walkDirs(root, partsUnder(root, path), false);
}

/** Creates the directories down to `dir` (under `root`), refusing a link or a non-directory on the way. */
export function ensureDirUnder(root: string, dir: string): void {
  walkDirs(root, [...partsUnder(root, dir), ''], true);
}

const readAt = (fd: number, buf: Buffer, pos: number): Promise<number> =>
  new Promise((res, rej) => { read(fd, buf, 0, buf.length, pos, (err, n) => (err ? rej(err) : res(n))); });

/** A file opened by openForRead, read by position; closed by its owner. */
export class FdReader {
  readonly size: number;

  constructor(readonly fd: number) {
    this.size = fstatSync(fd).size;
  }

  async read(pos: number, len: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(len, this.size - pos)));
    let n = 0;
    while (n < buf.length) {
      const got = await readAt(this.fd, buf.subarray(n), pos + n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** `fn` over the file at `path` under `root`, closed after; undefined when the file does not exist. */
export async function withFileUnder<R>(root: string, path: string, fn: (f: FdReader) => Promise<R>): Promise<R | undefined> {
  const fd = openForRead(root, path);
  if (fd === undefined) return undefined;
  const f = new FdReader(fd);
  try {
    return await fn(f);
  } finally {
    f.close();
  }
}

/** The first `maxBytes` bytes of a file under `root` as text; undefined when it does not exist. */
export function readHeadUnder(root: string, path: string, maxBytes: number): Promise<string | undefined> {
  return withFileUnder(root, path, async (f) => (await f.read(0, maxBytes)).toString('utf8'));
}

/** The first `bytes` bytes of a file under `root`, synchronously (hot paths); undefined when it does not exist. */
export function readHeadUnderSync(root: string, path: string, bytes: number): string | undefined {
  const fd = openForRead(root, path);
  return fd === undefined ? undefined : readHeadOfFd(fd, bytes);
}

/** A file of ours larger than any we write: it is not read into memory. */
export class OversizeFileError extends Error {
  constructor(readonly path: string, size: number, maxBytes: number) {
    super(`${path} is ${size} bytes, more than the ${maxBytes} a file of ours holds: it is not read`);
    this.name = 'OversizeFileError';
  }
}

/** The whole of a small file under `root` as text; undefined when it does not exist; OversizeFileError above `maxBytes`. */
export function readSmallUnder(root: string, path: string, maxBytes: number): Promise<string | undefined> {
  return withFileUnder(root, path, async (f) => {
    if (f.size > maxBytes) throw new OversizeFileError(path, f.size, maxBytes);
    return (await f.read(0, f.size)).toString('utf8');
  });
}

/** Whether a regular file of ours exists at `path` under `root` (a planted one does not count). */
export function isFileUnder(root: string, path: string): boolean {
  try {
    const fd = openForRead(root, path);
    if (fd === undefined) return false;
    closeSync(fd);
    return true;
  } catch (e) {
    if (isPlanted(e)) return false;
    throw e;
  }
}
