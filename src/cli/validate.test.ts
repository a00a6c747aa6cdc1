import { planWaves } from './validate.js';

type Steps = Array<{ name: string; depends: string[] }>;
const plan = (steps: Steps): string[][] => planWaves({ steps } as Parameters<typeof planWaves>[0]);
const chain = (n: number): Steps => Array.from({ length: n }, (_, i) => ({ name: `s${i}`, depends: i ? [`s${i - 1}`] : [] }));

describe('planWaves: the waves of svc dry', () => {
  test.each<[string, Steps, string[][]]>([
    ['no steps', [], []],
    ['a chain', chain(3), [['s0'], ['s1'], ['s2']]],
    ['independent steps: one wave, in definition order', [{ name: 'b', depends: [] }, { name: 'a', depends: [] }], [['b', 'a']]],
    ['a diamond', [
      { name: 'top', depends: [] }, { name: 'r', depends: ['top'] }, { name: 'l', depends: ['top'] }, { name: 'end', depends: ['l', 'r'] },
    ], [['top'], ['r', 'l'], ['end']]],
    ['a step waits for its latest dependency', [
      { name: 'a', depends: [] }, { name: 'late', depends: ['a', 'b'] }, { name: 'b', depends: ['a'] },
    ], [['a'], ['b'], ['late']]],
    ['a dependency named twice counts once', [{ name: 'a', depends: [] }, { name: 'b', depends: ['a', 'a'] }], [['a'], ['b']]],
    ['a wave keeps definition order, not discovery order', [
      { name: 'x', depends: [] }, { name: 'y', depends: [] }, { name: 'late', depends: ['y'] }, { name: 'early', depends: ['x'] },
    ], [['x', 'y'], ['late', 'early']]],
  ])('%s', (_, steps, waves) => {
    expect(plan(steps)).toEqual(waves);
  });

  /**
   * Work, not time (issue 20, item 15: a 20,000-step chain took 86 s): the Map and Set operations a plan
   * makes, counted for a chain of n and of 2n steps, grow linearly. The old loop rescanned every remaining
   * step for each wave, so doubling the chain quadrupled them.
   */
  test('the work grows linearly with the chain', () => {
    const work = (n: number): number => countCollectionOps(() => plan(chain(n)));
    expect(work(4000) / work(2000)).toBeLessThan(2.5);
  });
});

function countCollectionOps(fn: () => void): number {
  let count = 0;
  const restore: Array<() => void> = [];
  for (const proto of [Map.prototype, Set.prototype] as unknown as Array<Record<string, (...a: unknown[]) => unknown>>) {
    for (const op of ['get', 'set', 'has', 'add', 'delete']) {
      const original = proto[op];
      if (!original) continue;
      proto[op] = function (this: unknown, ...a: unknown[]) { count += 1; return original.apply(this, a); };
      restore.push(() => { proto[op] = original; });
    }
  }
  try { fn(); } finally { for (const r of restore) r(); }
  return count;
}
