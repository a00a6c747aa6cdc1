/**
 * The S3 client of one step. Credentials: the config's keys (the step's, over the DAG-level block), else
 * the step's environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, from `env:` or
 * secrets), else the SDK's default chain (the process environment, shared files, web identity, instance
 * metadata). Region: the config's, else AWS_REGION or AWS_DEFAULT_REGION of the step, else us-east-1
 * (S3-compatible servers mostly ignore it). Timeouts and retries are bounded so an unreachable or silent
 * endpoint fails the step rather than hanging it: a connection must open within `connectMs`, a socket
 * may stay silent `idleMs` at most, and a request is tried `attempts` times (with the SDK's backoff;
 * a request whose body is a file stream is not retried by the SDK: the step's retryPolicy is).
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { Connection } from './settings.js';

export interface Limits {
  connectMs: number;
  idleMs: number;
  attempts: number;
}

export const DEFAULT_LIMITS: Limits = { connectMs: 10_000, idleMs: 60_000, attempts: 3 };

function credentials(c: Connection, env: Record<string, string>): S3Client['config']['credentials'] | undefined {
  const id = c.accessKeyId ?? env.AWS_ACCESS_KEY_ID;
  const secret = c.secretAccessKey ?? env.AWS_SECRET_ACCESS_KEY;
  if (!id || !secret) return undefined;
  const token = c.accessKeyId ? c.sessionToken : (c.sessionToken ?? env.AWS_SESSION_TOKEN);
  return async () => ({ accessKeyId: id, secretAccessKey: secret, ...(token ? { sessionToken: token } : {}) });
}

/** The SDK would warn on the service's console (a failed streamed upload); the step reports its errors itself. */
const quiet = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export function s3Client(c: Connection, env: Record<string, string>, limits: Limits): S3Client {
  const creds = credentials(c, env);
  return new S3Client({
    region: c.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    forcePathStyle: c.forcePathStyle,
    ...(creds ? { credentials: creds } : {}),
    maxAttempts: limits.attempts,
    logger: quiet,
    // Checksums only where S3 requires them: many S3-compatible servers reject the SDK's default
    // trailing checksums on streamed uploads.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: limits.connectMs, socketTimeout: limits.idleMs },
  });
}
