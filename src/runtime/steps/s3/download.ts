/**
 * `download`: one object (`key`) to a local file, or with recursive: true (or a prefix) every object
 * under `key/` (or `prefix`) into the destination directory, each at its key relative to the prefix's
 * last "/". Each file is streamed to a temp file beside it and renamed into place, so no reader sees half
 * a file and a failed or aborted step leaves none. A destination that is a directory (or ends with "/")
 * receives the object under its key's base name. In a tree, a key with a ".." segment is refused before
 * anything is downloaded, and no file is written through a symlink leading out of the destination.
 * Prints one JSON object: for a file operation, success, bucket, key, uri, destination, size,
 * contentType, etag, duration; for a tree operation, success, bucket, prefix, uri, destination,
 * downloadedCount, size, downloadedKeys (the first 100), duration.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, realpath, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { ensureDirsWithin, fsReason, PathBlocked, writeAtomically } from '../archive/fs-safe.js';
import { printJson, since } from '../archive/report.js';
import { StepError } from '../runner.js';
import { call, type S3Run } from './context.js';
import { SHOWN_KEYS } from './delete.js';
import { folder, uri } from './errors.js';
import { keysUnder } from './listing.js';
import { eachLimit } from './pool.js';
import type { LocalPath } from './settings.js';

const PARALLEL = 4;

/** Streams the object to `target` atomically; the GetObject answer (metadata) and the bytes written. */
async function fetchTo(r: S3Run, key: string, target: string): Promise<{ res: GetObjectCommandOutput; size: number }> {
  try {
    return await writeAtomically(target, async (tmp) => {
      const res = await call(r, `download ${uri(r.s.bucket, key)}`, (o) => r.client.send(new GetObjectCommand({ Bucket: r.s.bucket, Key: key }), o));
      const out = createWriteStream(tmp);
      await pipeline(res.Body as Readable, out, { signal: r.signal });
      return { res, size: out.bytesWritten };
    });
  } catch (e) {
    if (r.signal.aborted || !(e as NodeJS.ErrnoException).syscall) throw e;
    throw new StepError(`s3 step: download ${uri(r.s.bucket, key)}: cannot write ${target}: ${fsReason(e)}`);
  }
}

async function fileTarget(dest: LocalPath, key: string): Promise<string> {
  const isDir = dest.name.endsWith('/') || (await stat(dest.path).catch(() => undefined))?.isDirectory() === true;
  return isDir ? join(dest.path, basename(key)) : dest.path;
}

async function downloadFile(r: S3Run, dest: LocalPath, key: string): Promise<void> {
  const start = performance.now();
  const { res, size } = await fetchTo(r, key, await fileTarget(dest, key));
  printJson(r.io, {
    operation: 'download', success: true, bucket: r.s.bucket, key, uri: uri(r.s.bucket, key), destination: dest.name, size,
    contentType: res.ContentType ?? null, etag: res.ETag?.replace(/^"|"$/g, '') ?? null, duration: since(start),
  });
}

interface Planned { key: string; segments: string[] }

/** Where each object of the tree goes; refuses the whole download if one key would land outside. */
export function plan(keys: { key: string }[], cut: number): Planned[] {
  return keys.flatMap(({ key }) => {
    const segments = key.slice(cut).split('/').filter((s) => s !== '' && s !== '.');
    if (segments.includes('..')) throw new StepError(`s3 step: object key "${key}" would be written outside the destination (it has a ".." segment): refused`);
    // A key ending in "/" is a "directory" marker: nothing to write but the directory.
    return key.endsWith('/') || segments.length === 0 ? [] : [{ key, segments }];
  });
}

async function destinationRoot(dest: LocalPath): Promise<string> {
  try {
    await mkdir(dest.path, { recursive: true });
    return await realpath(dest.path);
  } catch (e) {
    throw new StepError(`s3 step: cannot create the destination ${dest.name}: ${fsReason(e)}`);
  }
}

async function downloadTree(r: S3Run, dest: LocalPath): Promise<void> {
  const start = performance.now();
  const prefix = r.s.key !== undefined ? folder(r.s.key) : (r.s.prefix ?? '');
  const todo = plan(await keysUnder(r, prefix), prefix.lastIndexOf('/') + 1);
  const root = await destinationRoot(dest);
  const checked = new Set<string>();
  let size = 0;
  await eachLimit(todo, PARALLEL, async (p) => {
    const dir = await ensureDirsWithin(root, p.segments.slice(0, -1), checked).catch((e: unknown) => {
      if (!(e instanceof PathBlocked)) throw e;
      throw new StepError(`s3 step: object key "${p.key}" would be written outside the destination (${e.message}): refused`);
    });
    const got = await fetchTo(r, p.key, join(dir, p.segments[p.segments.length - 1]!));
    size += got.size;
  });
  printJson(r.io, {
    operation: 'download', success: true, bucket: r.s.bucket, prefix, uri: uri(r.s.bucket, prefix), destination: dest.name,
    downloadedCount: todo.length, size, downloadedKeys: todo.slice(0, SHOWN_KEYS).map((p) => p.key), duration: since(start),
  });
}

export async function download(r: S3Run): Promise<void> {
  const dest = r.s.destination!;
  if (r.s.recursive || (r.s.key === undefined && r.s.prefix !== undefined)) return downloadTree(r, dest);
  return downloadFile(r, dest, r.s.key ?? '');
}
