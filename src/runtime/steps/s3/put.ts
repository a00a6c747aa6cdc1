/**
 * Puts one local file as one object, streamed from disk. Up to MULTIPART_MIN bytes a single PutObject
 * (with its length, so nothing is buffered); larger files as a multipart upload, part by part, which also
 * passes PutObject's 5 GiB limit. A failed or aborted multipart upload is aborted on the server, so no
 * parts are left behind to pay for.
 */
import { createReadStream } from 'node:fs';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, PutObjectCommand, UploadPartCommand,
  type StorageClass,
} from '@aws-sdk/client-s3';
import { call, type S3Run } from './context.js';
import { uri } from './errors.js';

/** Parts of at least 16 MiB (S3 needs 5 MiB but the last), and never more than S3's 10000 parts. */
export const MULTIPART_MIN = 16 << 20;
const MAX_PARTS = 10_000;

export interface Put {
  path: string;
  key: string;
  size: number;
  contentType: string;
}

function headers(r: S3Run, p: Put): { Bucket: string; Key: string; ContentType: string; StorageClass?: StorageClass } {
  return { Bucket: r.s.bucket, Key: p.key, ContentType: p.contentType, ...(r.s.storageClass ? { StorageClass: r.s.storageClass as StorageClass } : {}) };
}

async function putMultipart(r: S3Run, p: Put, partSize: number): Promise<string | undefined> {
  const what = `upload ${uri(r.s.bucket, p.key)}`;
  const { UploadId } = await call(r, what, (o) => r.client.send(new CreateMultipartUploadCommand(headers(r, p)), o));
  try {
    const parts: { ETag?: string; PartNumber: number }[] = [];
    for (let start = 0, n = 1; start < p.size; start += partSize, n++) {
      const length = Math.min(partSize, p.size - start);
      const body = createReadStream(p.path, { start, end: start + length - 1 });
      const res = await call(r, what, (o) => r.client.send(new UploadPartCommand({
        Bucket: r.s.bucket, Key: p.key, UploadId, PartNumber: n, Body: body, ContentLength: length,
      }), o)).finally(() => body.destroy());
      parts.push({ ETag: res.ETag, PartNumber: n });
    }
    const done = await call(r, what, (o) => r.client.send(new CompleteMultipartUploadCommand({
      Bucket: r.s.bucket, Key: p.key, UploadId, MultipartUpload: { Parts: parts },
    }), o));
    return done.ETag;
  } catch (e) {
    // Not with the step's signal: it may be what failed the upload, and the parts must still go.
    await r.client.send(new AbortMultipartUploadCommand({ Bucket: r.s.bucket, Key: p.key, UploadId })).catch(() => undefined);
    throw e;
  }
}

/** Uploads the file; the new object's ETag (without quotes). */
export async function putFile(r: S3Run, p: Put, multipartMin = MULTIPART_MIN): Promise<string | undefined> {
  let etag: string | undefined;
  if (p.size > multipartMin) {
    etag = await putMultipart(r, p, Math.max(multipartMin, Math.ceil(p.size / MAX_PARTS)));
  } else {
    const body = createReadStream(p.path);
    const res = await call(r, `upload ${uri(r.s.bucket, p.key)}`, (o) => r.client.send(new PutObjectCommand({
      ...headers(r, p), Body: body, ContentLength: p.size,
    }), o)).finally(() => body.destroy());
    etag = res.ETag;
  }
  return etag?.replace(/^"|"$/g, '');
}
