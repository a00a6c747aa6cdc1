/** The Pod creation token bucket, on a clock that only moves when it is slept on. */
import { TokenBucket, type RateClock } from './rate-limit.js';

function fakeClock(): RateClock & { t: number; slept: number[] } {
  const c = { t: 0, slept: [] as number[], now: () => c.t, sleep: async (ms: number) => { c.slept.push(ms); c.t += ms; } };
  return c;
}

test('a burst passes at once; then one token per 1/qps seconds, in arrival order', async () => {
  const clock = fakeClock();
  const bucket = new TokenBucket(10, 3, clock);
  const order: number[] = [];
  await Promise.all([1, 2, 3, 4, 5].map((i) => bucket.take().then(() => order.push(i))));
  expect(order).toEqual([1, 2, 3, 4, 5]);
  expect(clock.t).toBe(200); // 3 from the burst, then 2 more at 100 ms each
});

test('tokens saved while idle, up to the burst', async () => {
  const clock = fakeClock();
  const bucket = new TokenBucket(10, 2, clock);
  await bucket.take();
  await bucket.take();
  clock.t += 10_000; // idle for 10 s: only 2 tokens are kept
  await bucket.take();
  await bucket.take();
  expect(clock.slept).toEqual([]);
  await bucket.take();
  expect(clock.slept).toEqual([100]);
});
