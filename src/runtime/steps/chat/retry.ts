/**
 * Retries of a provider call (SPEC 2.6): transient failures (429, 408, 5xx, a connection reset or
 * refused, a timeout) are tried again after an exponential backoff, or after the provider's Retry-After
 * when it gives one, a bounded number of times; anything else (400, 401, 403, 404...) fails at once
 * with the provider's message. A response that has begun streaming to the step's stdout is never
 * retried (the text would be printed twice): the step's retryPolicy is the tool for that.
 */

export interface RetrySettings {
  /** Attempts in all, the first included. */
  attempts: number;
  /** The first backoff; it doubles on each retry, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this fails the step rather than wait. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetrySettings = { attempts: 5, baseDelayMs: 1000, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

/** What a failed call said: its HTTP status (none for a connection failure) and Retry-After. */
export interface Failure {
  status?: number;
  retryAfterMs?: number;
  message: string;
}

const TRANSIENT_STATUS = new Set([408, 409, 425, 429]);

export function isTransient(f: Failure): boolean {
  if (f.status === undefined) return true;
  return TRANSIENT_STATUS.has(f.status) || f.status >= 500;
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in ms; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const v = headers?.get('retry-after')?.trim();
  if (!v) return undefined;
  const s = Number(v);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function backoffMs(retry: number, r: RetrySettings): number {
  return Math.min(r.maxDelayMs, r.baseDelayMs * 2 ** retry);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it is aborted. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(signal.reason as Error); return; }
    const done = (): void => { signal.removeEventListener('abort', stop); resolve(); };
    const timer = setTimeout(done, ms);
    const stop = (): void => { clearTimeout(timer); reject(signal.reason as Error); };
    signal.addEventListener('abort', stop, { once: true });
  });
}

export interface RetryHooks<T> {
  call: () => Promise<T>;
  /** The failure an error stands for; undefined when it is not a provider failure (rethrown as is). */
  failure: (e: unknown) => Failure;
  /** False once output has begun: no retry then. */
  retriable: () => boolean;
  /** Told of each retry before its wait. */
  note: (f: Failure, waitMs: number, next: number) => void;
  /** The error to throw for a failure that ends the step. */
  fail: (f: Failure, attempts: number) => Error;
}

export async function withRetries<T>(h: RetryHooks<T>, r: RetrySettings, signal: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await h.call();
    } catch (e) {
      if (signal.aborted) throw signal.reason as Error;
      const f = h.failure(e);
      if (!isTransient(f) || !h.retriable() || attempt >= r.attempts) throw h.fail(f, attempt);
      if (f.retryAfterMs !== undefined && f.retryAfterMs > r.maxRetryAfterMs) throw h.fail(f, attempt);
      const wait = Math.max(backoffMs(attempt - 1, r), f.retryAfterMs ?? 0);
      h.note(f, wait, attempt + 1);
      await sleep(wait, signal);
    }
  }
}
