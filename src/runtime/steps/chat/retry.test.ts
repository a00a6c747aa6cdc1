import { backoffMs, isTransient, retryAfterMs, withRetries, type Failure } from './retry.js';

const settings = { attempts: 3, baseDelayMs: 1, maxDelayMs: 4, maxRetryAfterMs: 50 };

describe('chat retries', () => {
  test.each([
    [429, true], [408, true], [500, true], [503, true], [529, true], [undefined, true],
    [400, false], [401, false], [403, false], [404, false], [422, false],
  ])('status %s transient: %s', (status, transient) => {
    expect(isTransient({ message: '', ...(status !== undefined ? { status } : {}) })).toBe(transient);
  });

  test('Retry-After in seconds, as a date, retry-after-ms; unreadable is none', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '3' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  test('backoff doubles up to its cap', () => {
    expect([0, 1, 2, 3, 4].map((n) => backoffMs(n, { ...settings, baseDelayMs: 1000, maxDelayMs: 5000 }))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });

  async function run(failures: Failure[], opts: { retriable?: boolean } = {}): Promise<{ calls: number; waits: number[]; error?: string }> {
    let calls = 0;
    const waits: number[] = [];
    try {
      await withRetries({
        call: () => { const f = failures[calls++]; return f ? Promise.reject(new Error(f.message, { cause: f })) : Promise.resolve('ok'); },
        failure: (e) => (e as Error).cause as Failure,
        retriable: () => opts.retriable ?? true,
        note: (_f, wait) => { waits.push(wait); },
        fail: (f, n) => new Error(`${f.message} after ${n}`),
      }, settings, new AbortController().signal);
      return { calls, waits };
    } catch (e) {
      return { calls, waits, error: (e as Error).message };
    }
  }

  test('transient failures are retried, bounded; the wait honours Retry-After', async () => {
    expect(await run([{ status: 503, message: 'a' }, { status: 429, retryAfterMs: 20, message: 'b' }])).toEqual({ calls: 3, waits: [1, 20] });
    expect(await run([{ status: 503, message: 'a' }, { status: 503, message: 'b' }, { status: 503, message: 'c' }])).toEqual({ calls: 3, waits: [1, 2], error: 'c after 3' });
  });

  test('no retry for a refused request, once output began, or for a Retry-After past the limit', async () => {
    expect(await run([{ status: 401, message: 'no' }])).toEqual({ calls: 1, waits: [], error: 'no after 1' });
    expect(await run([{ status: 503, message: 'broke' }], { retriable: false })).toEqual({ calls: 1, waits: [], error: 'broke after 1' });
    expect(await run([{ status: 429, retryAfterMs: 60_000, message: 'later' }])).toEqual({ calls: 1, waits: [], error: 'later after 1' });
  });

  test('an abort ends the wait at once', async () => {
    const abort = new AbortController();
    const p = withRetries({
      call: () => Promise.reject(new Error('x')),
      failure: () => ({ status: 503, message: 'x' }),
      retriable: () => true,
      note: () => abort.abort(new Error('stopped')),
      fail: () => new Error('failed'),
    }, { ...settings, baseDelayMs: 60_000, maxDelayMs: 60_000 }, abort.signal);
    await expect(p).rejects.toThrow('stopped');
  });
});
