import { FIRST_LOCK_MS, FREE_FAILURES, LoginThrottle, MAX_LOCK_MS } from './throttle.js';

function clocked() {
  let t = 1_000_000;
  return { throttle: new LoginThrottle(() => t), advance: (ms: number) => { t += ms; } };
}

test('4 free failures, then 30 s doubling up to 15 min', () => {
  const { throttle } = clocked();
  const locks = Array.from({ length: 12 }, () => throttle.fail('alice'));
  expect(locks.slice(0, FREE_FAILURES)).toEqual([0, 0, 0, 0]);
  expect(locks.slice(FREE_FAILURES)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, MAX_LOCK_MS, MAX_LOCK_MS, MAX_LOCK_MS]);
});

test('a lock runs out; names are case-insensitive and independent', () => {
  const { throttle, advance } = clocked();
  for (let i = 0; i <= FREE_FAILURES; i++) throttle.fail('Bob');
  expect(throttle.retryAfterMs('bob')).toBe(FIRST_LOCK_MS);
  expect(throttle.retryAfterMs('carol')).toBe(0);
  advance(FIRST_LOCK_MS - 1);
  expect(throttle.retryAfterMs('BOB')).toBe(1);
  advance(1);
  expect(throttle.retryAfterMs('bob')).toBe(0);
  expect(throttle.fail('bob')).toBe(2 * FIRST_LOCK_MS); // the count is kept after a lock ends
});

test('a success clears the count; failures are forgotten 15 minutes after the last one', () => {
  const { throttle, advance } = clocked();
  for (let i = 0; i < FREE_FAILURES; i++) throttle.fail('dan');
  throttle.succeed('dan');
  expect(throttle.fail('dan')).toBe(0);
  for (let i = 0; i < FREE_FAILURES - 1; i++) throttle.fail('dan');
  advance(15 * 60_000 + 1);
  expect(throttle.fail('dan')).toBe(0);
});

describe('LoginThrottle concurrency and eviction', () => {
  test('one attempt per name at a time', () => {
    const t = new LoginThrottle(() => 0);
    expect(t.acquire('Ada')).toBe(true);
    expect(t.acquire('ada')).toBe(false);
    t.release('ada');
    expect(t.acquire('ada')).toBe(true);
  });

  test('a flood of junk names does not evict a locked name', () => {
    let now = 0;
    const t = new LoginThrottle(() => now);
    for (let i = 0; i < 6; i++) t.fail('victim');
    expect(t.retryAfterMs('victim')).toBeGreaterThan(0);
    for (let i = 0; i < 10_050; i++) t.fail(`junk-${i}`);
    now += 1000;
    expect(t.retryAfterMs('victim')).toBeGreaterThan(0);
  });
});
