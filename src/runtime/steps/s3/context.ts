/** What every s3 command works with: its settings, the client, the step's output and abort signal. */
import type { S3Client } from '@aws-sdk/client-s3';
import type { StepIO } from '../runner.js';
import { s3Error } from './errors.js';
import type { S3Settings } from './settings.js';

export interface S3Run {
  s: S3Settings;
  client: S3Client;
  io: StepIO;
  signal: AbortSignal;
  /** Keys asked for per list request (S3 answers at most 1000). */
  pageSize: number;
}

/**
 * Runs one SDK call, cancelled by the step's signal (`send(command, opts)`); a failure becomes a step
 * error about `what` ("download s3://bucket/key").
 */
export async function call<T>(r: S3Run, what: string, send: (opts: { abortSignal: AbortSignal }) => Promise<T>): Promise<T> {
  try {
    return await send({ abortSignal: r.signal });
  } catch (e) {
    throw s3Error(e, what, r.s.connection.endpoint, r.signal);
  }
}
