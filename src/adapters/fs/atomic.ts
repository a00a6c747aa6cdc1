/**
 * Atomic file writes and tolerant JSON reads: the only durability primitive of the embedded backend.
 *
 * Invariant: a reader sees either the previous content or the new content of a file, never a
 * partial one, and a write that returned survives a crash or power loss. Writes go to a unique temp
 * file in the same directory (same file system, so rename is atomic), created exclusively (O_EXCL: a
 * link planted at its name fails the write instead of being written through), synced, renamed over
 * the target (rename replaces a link there, never follows it), and the directory is synced so the
 * rename itself is on disk.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { closeSync, fsyncSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** A file exists but does not hold what we wrote (hand-edited, truncated by a disk problem). */
export class CorruptFileError extends Error {
  constructor(readonly path: string, cause: unknown) {
    super(`Corrupt JSON file ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'CorruptFileError';
  }
}

export interface WriteOptions {
  /** Create missing parent directories (default true). Off when the directory must already exist. */
  mkdir?: boolean;
}

let counter = 0;
/** Drawn once: with the pid it tells this process from an earlier one that had the same pid. */
const INSTANCE = randomBytes(4).toString('hex');
/** Unique per process (pid + instance) and per call (counter). */
const tempName = (path: string): string => `${path}.${process.pid}.${INSTANCE}.${(counter++).toString(36)}.tmp`;

export async function writeFileAtomic(path: string, data: string | Uint8Array, opts: WriteOptions = {}): Promise<void> {
  if (opts.mkdir ?? true) await mkdir(dirname(path), { recursive: true });
  const tmp = tempName(path);
  try {
    const fh = await open(tmp, 'wx', 0o644);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await syncDir(dirname(path));
}

/** Makes the entries of a directory (a rename or link into it) durable. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try { await fh.sync(); } finally { await fh.close(); }
}

function syncDirSync(dir: string): void {
  const fd = openSync(dir, 'r');
  try { fsyncSync(fd); } finally { closeSync(fd); }
}

function writeAllSync(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * The same, synchronously: for the hot path of status updates, where a few small blocking calls beat
 * several round trips through the I/O thread pool (measured on the engine benchmark).
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  const tmp = tempName(path);
  try {
    const fd = openSync(tmp, 'wx', 0o644);
    try {
      writeAllSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    try { unlinkSync(tmp); } catch { /* never created */ }
    throw err;
  }
  syncDirSync(dirname(path));
}

/** The first bytes of a file, synchronously; undefined when it does not exist. */
export function readHeadSync(path: string, bytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  return readHeadOfFd(fd, bytes);
}

/** The first bytes of an open file as text; the descriptor is closed. */
export function readHeadOfFd(fd: number, bytes: number): string {
  try {
    const buf = Buffer.allocUnsafe(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}

export const isNotFound = (err: unknown): boolean =>
  (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/** Parsed JSON, or undefined when the file (or its directory) does not exist. */
/** A directory's entries; none when it does not exist. */
export async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

export async function readJson<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  return parseJson<T>(path, text);
}

export function parseJson<T>(path: string, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new CorruptFileError(path, err);
  }
}

/**
 * The first `bytes` bytes of a file as text (undefined when missing): cheap peeks at big files. The
 * buffer is sized by the file, not by the limit (limits are megabytes, most logs are a few bytes).
 */
export async function readHead(path: string, bytes: number): Promise<string | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  try {
    const size = Math.min(bytes, (await fh.stat()).size);
    const buf = Buffer.allocUnsafe(size);
    const { bytesRead } = await fh.read(buf, 0, size, 0);
    return buf.toString('utf8', 0, bytesRead);
  } finally {
    await fh.close();
  }
}
