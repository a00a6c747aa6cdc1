import type { RunPosition } from '../ports/run-store.js';
import { compareNewestFirst, decodeRunCursor, encodeRunCursor, matchesRunFilter, selectRuns, type RunEntry } from './run-list.js';

const entry = (createdMs: number, dagRunId: string, dagName = 'd', over: Partial<RunEntry> = {}): RunEntry => ({
  createdMs, dagRunId, dagName, root: true, status: 4, timeMs: createdMs, tags: [], ...over,
});

describe('list order', () => {
  test('newest first, then run id, then DAG name, both descending', () => {
    const sorted = [entry(1, 'a'), entry(2, 'a'), entry(2, 'b'), entry(2, 'b', 'e'), entry(0, 'z')].sort(compareNewestFirst);
    expect(sorted.map((e) => `${e.createdMs}/${e.dagRunId}/${e.dagName}`)).toEqual(['2/b/e', '2/b/d', '2/a/d', '1/a/d', '0/z/d']);
  });

  test('selectRuns keeps the newest `limit` in order, as a sort of all would (bounded heap)', () => {
    const items = Array.from({ length: 500 }, (_, i) => entry((i * 7919) % 97, `r${(i * 31) % 500}`, `d${i % 3}`));
    const all = [...items].sort(compareNewestFirst);
    for (const limit of [0, 1, 2, 10, 99, 499, 500, 501]) {
      expect(selectRuns(items, (e) => e, { limit })).toEqual(all.slice(0, limit));
    }
    expect(selectRuns(items, (e) => e, {})).toEqual(all);
  });

  test('after: strictly later runs only', () => {
    const items = [entry(3, 'c'), entry(2, 'b'), entry(2, 'a'), entry(1, 'x')];
    const after: RunPosition = { createdMs: 2, dagRunId: 'b', dagName: 'd' };
    expect(selectRuns(items, (e) => e, { after }).map((e) => e.dagRunId)).toEqual(['a', 'x']);
    expect(selectRuns(items, (e) => e, { after: { ...after, dagName: 'e' } }).map((e) => e.dagRunId)).toEqual(['b', 'a', 'x']);
  });
});

describe('filters', () => {
  test.each<[string, Partial<RunEntry>, Parameters<typeof matchesRunFilter>[1], boolean]>([
    ['an unreadable run time matches no date bound', { timeMs: NaN }, { fromMs: 0 }, false],
    ['no date bound: kept', { timeMs: NaN }, {}, true],
    ['inclusive bounds', { timeMs: 10 }, { fromMs: 10, toMs: 10 }, true],
    ['root only', { root: false }, { rootOnly: true }, false],
    ['an empty id substring filters nothing', {}, { dagRunIdContains: '' }, true],
    ['tags', { tags: [{ key: 'env', value: 'prod' }] }, { tags: { terms: [{ kind: 'equals', key: 'env', value: 'p*' }] } }, true],
  ])('%s', (_label, over, f, expected) => {
    expect(matchesRunFilter(entry(5, 'r', 'd', over), f)).toBe(expected);
  });
});

describe('cursors', () => {
  test('round-trip, and are opaque URL-safe text', () => {
    const p: RunPosition = { createdMs: 1_735_689_600_123, dagRunId: '0192a.b_c-1', dagName: 'my.etl-dag' };
    const c = encodeRunCursor(p);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeRunCursor(c)).toEqual(p);
  });

  test.each([
    ['empty', ''],
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['another version', Buffer.from(JSON.stringify([2, 1, 'd', 'r'])).toString('base64url')],
    ['a fractional time', Buffer.from(JSON.stringify([1, 1.5, 'd', 'r'])).toString('base64url')],
    ['an unsafe DAG name', Buffer.from(JSON.stringify([1, 1, '../x', 'r'])).toString('base64url')],
    ['an invalid run id', Buffer.from(JSON.stringify([1, 1, 'd', 'a/b'])).toString('base64url')],
    ['too long', 'A'.repeat(513)],
  ])('refuses %s', (_label, text) => {
    expect(decodeRunCursor(text)).toBeUndefined();
  });
});
