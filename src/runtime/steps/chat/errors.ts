/**
 * What a provider call's failure was, the same way for the three SDKs: the status comes from the SDK's
 * error (or the last response), Retry-After from the last response's headers, which a wrapped fetch
 * records (the Gemini SDK's errors carry no headers). Messages never hold the API key.
 */
import { maskSecrets } from '../../../core/vars/mask.js';
import { retryAfterMs, type Failure } from './retry.js';

export interface Tracked {
  fetch: typeof fetch;
  /** The last response's status and Retry-After; cleared by reset(). */
  last: { status?: number; retryAfterMs?: number };
  reset(): void;
}

/** A fetch that remembers the last response (global fetch looked up on each call, as test interceptors expect). */
export function trackingFetch(): Tracked {
  const t: Tracked = {
    last: {},
    reset: () => { t.last = {}; },
    fetch: async (input, init) => {
      const res = await globalThis.fetch(input, init);
      const after = retryAfterMs(res.headers);
      t.last = { status: res.status, ...(after !== undefined ? { retryAfterMs: after } : {}) };
      return res;
    },
  };
  return t;
}

/** The innermost cause of a connection failure: its errno code (ECONNREFUSED) or message. */
function causeText(e: unknown): string {
  let inner: unknown = e;
  for (let i = 0; i < 5 && (inner as { cause?: unknown }).cause instanceof Error; i++) inner = (inner as { cause: Error }).cause;
  if (inner === e || !(inner instanceof Error)) return '';
  const code = (inner as NodeJS.ErrnoException).code;
  return code ? ` (${code})` : ` (${inner.message})`;
}

/** The failure an error stands for; `hidden` (the API key, the run's secrets) masked out of the message. */
export function failureOf(e: unknown, tracked: Tracked, hidden: string[]): Failure {
  const status = (e as { status?: unknown }).status;
  const s = typeof status === 'number' ? status : tracked.last.status !== undefined && tracked.last.status >= 400 ? tracked.last.status : undefined;
  const raw = e instanceof Error ? `${e.message}${s === undefined ? causeText(e) : ''}` : String(e);
  return {
    ...(s !== undefined ? { status: s } : {}),
    ...(tracked.last.retryAfterMs !== undefined ? { retryAfterMs: tracked.last.retryAfterMs } : {}),
    message: maskSecrets(raw, hidden).replace(/\s+/g, ' ').trim(),
  };
}
