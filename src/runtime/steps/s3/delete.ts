/**
 * `delete`: one object by `key`, or every object under `prefix` (or in the "directory" `key/` with
 * recursive: true) in
 * batches of 1000 (DeleteObjects). Prints one JSON object: operation, success, bucket, key or prefix,
 * deletedCount, deletedKeys (the first 100), errorCount and errors when some failed, duration. Objects
 * that could not be deleted fail the step (after the summary is printed). Deleting a key that does not
 * exist succeeds, as S3 answers.
 */
import { DeleteObjectCommand, DeleteObjectsCommand } from '@aws-sdk/client-s3';
import { printJson, since } from '../archive/report.js';
import { StepError } from '../runner.js';
import { call, type S3Run } from './context.js';
import { folder, uri } from './errors.js';
import { listBucket } from './listing.js';

const BATCH = 1000;
export const SHOWN_KEYS = 100;

async function deleteOne(r: S3Run, key: string, start: number): Promise<void> {
  await call(r, `delete ${uri(r.s.bucket, key)}`, (o) => r.client.send(new DeleteObjectCommand({ Bucket: r.s.bucket, Key: key }), o));
  printJson(r.io, { operation: 'delete', success: true, bucket: r.s.bucket, key, deletedCount: 1, deletedKeys: [key], duration: since(start) });
}

async function deleteBatch(r: S3Run, keys: string[], prefix: string): Promise<{ deleted: string[]; errors: string[] }> {
  const res = await call(r, `delete ${uri(r.s.bucket, prefix)}`, (o) => r.client.send(new DeleteObjectsCommand({
    Bucket: r.s.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: false },
  }), o));
  return {
    deleted: (res.Deleted ?? []).map((d) => d.Key ?? ''),
    errors: (res.Errors ?? []).map((e) => `${e.Key}: ${e.Code ?? 'Error'} ${e.Message ?? ''}`.trim()),
  };
}

async function deleteTree(r: S3Run, prefix: string, start: number): Promise<void> {
  const deleted: string[] = [];
  const errors: string[] = [];
  let batch: string[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const done = await deleteBatch(r, batch, prefix);
    deleted.push(...done.deleted);
    errors.push(...done.errors);
    batch = [];
  };
  // Each full page is deleted before the next is asked for: memory stays bounded for any number of keys.
  for await (const item of listBucket(r, prefix, { max: Number.POSITIVE_INFINITY })) {
    if (!('object' in item) || item.object.Key === undefined) continue;
    batch.push(item.object.Key);
    if (batch.length === BATCH) await flush();
  }
  await flush();
  printJson(r.io, {
    operation: 'delete', success: errors.length === 0, bucket: r.s.bucket, prefix, deletedCount: deleted.length,
    deletedKeys: deleted.slice(0, SHOWN_KEYS), ...(errors.length > 0 ? { errorCount: errors.length, errors } : {}), duration: since(start),
  });
  if (errors.length > 0) throw new StepError(`s3 step: delete ${uri(r.s.bucket, prefix)}: ${errors.length} of ${errors.length + deleted.length} objects not deleted (${errors[0]})`);
}

export async function deleteObjects(r: S3Run): Promise<void> {
  const start = performance.now();
  const { key, prefix, recursive } = r.s;
  if (prefix !== undefined) return deleteTree(r, prefix, start);
  if (key !== undefined && recursive) return deleteTree(r, folder(key), start);
  return deleteOne(r, key ?? '', start);
}
