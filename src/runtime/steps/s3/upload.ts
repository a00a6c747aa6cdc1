/**
 * `upload`: a local file to `key` (or to prefix/<file name>), or with recursive: true a directory tree
 * under `key/` (or `prefix/`), each file at its relative path. Symlinks to files are uploaded as the file
 * they point to; links to directories are not followed (no loops). Content-Type: config.contentType, else
 * guessed from each file's extension. Prints one JSON object: for a file operation, success, bucket, key,
 * uri, etag, size, contentType, storageClass, duration; for a tree operation, success, bucket, prefix,
 * uri, uploadedCount, size (bytes in all), uploadedKeys (the first 100), duration.
 */
import type { Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fsReason } from '../archive/fs-safe.js';
import { printJson, since } from '../archive/report.js';
import { StepError } from '../runner.js';
import { contentTypeOf } from './content-type.js';
import type { S3Run } from './context.js';
import { SHOWN_KEYS } from './delete.js';
import { folder, uri } from './errors.js';
import { eachLimit } from './pool.js';
import { putFile, type Put } from './put.js';
import type { LocalPath } from './settings.js';

/** Files uploaded at once in a tree. */
const PARALLEL = 4;

async function statSource(source: LocalPath): Promise<Stats> {
  try {
    return await stat(source.path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new StepError(`s3 step: source ${source.name} does not exist`);
    throw new StepError(`s3 step: cannot read source ${source.name}: ${fsReason(e)}`);
  }
}

/** The regular files under a directory (following links to files), as [path, relative key, size]. */
async function filesUnder(dir: string, rel = ''): Promise<{ path: string; rel: string; size: number }[]> {
  const out: { path: string; rel: string; size: number }[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    const l = await lstat(path);
    if (l.isDirectory()) out.push(...await filesUnder(path, `${rel}${name}/`));
    else if (l.isFile()) out.push({ path, rel: `${rel}${name}`, size: l.size });
    else if (l.isSymbolicLink()) {
      const st = await stat(path).catch(() => undefined);
      if (st?.isFile()) out.push({ path, rel: `${rel}${name}`, size: st.size });
    }
  }
  return out;
}

const typeOf = (r: S3Run, path: string): string => r.s.contentType ?? contentTypeOf(path);

async function uploadFile(r: S3Run, source: LocalPath, size: number, multipartMin?: number): Promise<void> {
  const start = performance.now();
  const key = r.s.key ?? `${folder(r.s.prefix ?? '')}${basename(source.path)}`;
  const put: Put = { path: source.path, key, size, contentType: typeOf(r, source.path) };
  const etag = await putFile(r, put, multipartMin);
  printJson(r.io, {
    operation: 'upload', success: true, bucket: r.s.bucket, key, uri: uri(r.s.bucket, key), etag, size,
    contentType: put.contentType, ...(r.s.storageClass ? { storageClass: r.s.storageClass } : {}), duration: since(start),
  });
}

async function uploadTree(r: S3Run, source: LocalPath, multipartMin?: number): Promise<void> {
  const start = performance.now();
  const base = folder(r.s.key ?? r.s.prefix ?? '');
  const files = await filesUnder(source.path);
  await eachLimit(files, PARALLEL, async (f) => {
    await putFile(r, { path: f.path, key: base + f.rel, size: f.size, contentType: typeOf(r, f.path) }, multipartMin);
  });
  printJson(r.io, {
    operation: 'upload', success: true, bucket: r.s.bucket, prefix: base, uri: uri(r.s.bucket, base), uploadedCount: files.length,
    size: files.reduce((n, f) => n + f.size, 0), uploadedKeys: files.slice(0, SHOWN_KEYS).map((f) => base + f.rel), duration: since(start),
  });
}

export async function upload(r: S3Run, multipartMin?: number): Promise<void> {
  const source = r.s.source!;
  const st = await statSource(source);
  if (st.isDirectory() && !r.s.recursive) throw new StepError(`s3 step: source ${source.name} is a directory: set recursive: true to upload the tree under it`);
  if (st.isDirectory()) return uploadTree(r, source, multipartMin);
  if (!st.isFile()) throw new StepError(`s3 step: source ${source.name} is not a file`);
  return uploadFile(r, source, st.size, multipartMin);
}
