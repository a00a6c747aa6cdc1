/**
 * SDK and network failures as step errors a user can act on: a missing bucket or key, refused
 * credentials, an unreachable endpoint (after the bounded retries). The message names the operation and
 * the object (s3://bucket/key) and never carries a credential.
 */
import { StepError } from '../runner.js';

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

const NETWORK = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE)\b/;

const KNOWN: Record<string, string> = {
  NoSuchBucket: 'no such bucket',
  NoSuchKey: 'no such key',
  InvalidAccessKeyId: 'access denied: the server does not know this access key id (check accessKeyId)',
  SignatureDoesNotMatch: 'access denied: the request signature does not match (check secretAccessKey)',
  CredentialsProviderError: 'no credentials: set accessKeyId and secretAccessKey (in config or the DAG-level s3 block) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
};

/** An unreachable endpoint (after the SDK's retries), or undefined for other errors. */
function unreachable(e: SdkError, endpoint: string): string | undefined {
  // The SDK wraps an error that is not an Error of its own realm ("AWS SDK error wrapper for Error: ...",
  // without the code): the code is then only in the message.
  const message = (e.message ?? '').replace(/^AWS SDK error wrapper for (Error: )?/, '');
  const code = NETWORK.exec(`${e.code ?? ''} ${message}`)?.[1] ?? (e.name === 'TimeoutError' ? e.name : undefined);
  if (!code) return undefined;
  const attempts = e.$metadata?.attempts ? ` after ${e.$metadata.attempts} attempts` : '';
  if (code === 'TimeoutError') return `cannot reach ${endpoint}${attempts}: no answer in time (connection or socket timed out)`;
  return `cannot reach ${endpoint}${attempts}: ${message.includes(code) ? message : `${code} ${message}`.trim()}`;
}

function reason(e: SdkError, endpoint: string): string {
  const name = e.name ?? e.Code ?? '';
  const status = e.$metadata?.httpStatusCode;
  const known = KNOWN[name] ?? (name === 'NotFound' && status === 404 ? KNOWN.NoSuchKey : undefined);
  if (known) return known;
  if (name === 'AccessDenied' || status === 403) return `access denied${e.message && e.message !== 'UnknownError' ? `: ${e.message}` : ''}`;
  return unreachable(e, endpoint) ?? `${name && name !== 'Error' ? `${name}: ` : ''}${e.message ?? String(e)}`;
}

/** The step error for a failed S3 call; an abort passes through as it is (the launcher reports it). */
export function s3Error(e: unknown, what: string, endpoint: string | undefined, signal: AbortSignal): Error {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
  if (e instanceof StepError) return e;
  return new StepError(`s3 step: ${what}: ${reason((e ?? {}) as SdkError, endpoint ?? 'the S3 endpoint')}`);
}

export const uri = (bucket: string, key = ''): string => `s3://${bucket}/${key}`;

/** A key prefix read as a "directory": "reports" -> "reports/"; "" (the whole bucket) stays "". */
export const folder = (p: string): string => (p === '' || p.endsWith('/') ? p : `${p}/`);
