/**
 * The `s3` step type (SPEC 2.6): `command` is upload, download, list or delete; config bucket, key,
 * source, destination, prefix, maxKeys, recursive, contentType, storageClass, and the connection fields
 * of the DAG-level `s3` block (region, accessKeyId, secretAccessKey, sessionToken, bucket, endpoint,
 * forcePathStyle), step fields over the DAG's. docs/steps/s3.md is the user's page.
 */
import { maskSecrets } from '../../../core/vars/mask.js';
import type { StepIO, StepRunner } from '../runner.js';
import { DEFAULT_LIMITS, s3Client, type Limits } from './client.js';
import type { S3Run } from './context.js';
import { deleteObjects } from './delete.js';
import { download } from './download.js';
import { listObjects } from './list.js';
import { MULTIPART_MIN } from './put.js';
import { s3Settings } from './settings.js';
import { upload } from './upload.js';

export interface S3Options {
  limits: Limits;
  /** Files larger than this go up as multipart uploads. */
  multipartMin: number;
  /** Keys per list request. */
  pageSize: number;
}

/**
 * The secret access key is masked in all the step writes even when it is written in the DAG file rather
 * than given as a secret (the launcher masks only declared secrets). Nothing here prints it; this is the
 * belt to those braces, for messages that come from elsewhere.
 */
/** Shorter values are not masked: they would blank out ordinary words (no real secret key is this short). */
const MIN_MASKED = 8;

function masked(io: StepIO, secrets: string[]): StepIO {
  if (secrets.length === 0) return io;
  return { out: (t) => io.out(maskSecrets(t, secrets)), err: (t) => io.err(maskSecrets(t, secrets)) };
}

export function s3Runner(o: Partial<S3Options> = {}): StepRunner {
  const limits = o.limits ?? DEFAULT_LIMITS;
  return async ({ req, io, signal }) => {
    const s = s3Settings(req);
    const secrets = [s.connection.secretAccessKey, s.connection.sessionToken].filter((v): v is string => v !== undefined && v.length >= MIN_MASKED);
    const client = s3Client(s.connection, req.env, limits);
    const r: S3Run = { s, client, io: masked(io, secrets), signal, pageSize: o.pageSize ?? 1000 };
    try {
      if (s.command === 'upload') await upload(r, o.multipartMin ?? MULTIPART_MIN);
      else if (s.command === 'download') await download(r);
      else if (s.command === 'list') await listObjects(r);
      else await deleteObjects(r);
    } catch (e) {
      if (e instanceof Error) e.message = maskSecrets(e.message, secrets);
      throw e;
    } finally {
      client.destroy();
    }
    return { exitCode: 0 };
  };
}

export const runS3: StepRunner = s3Runner();
