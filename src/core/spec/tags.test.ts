import { Problems } from './errors.js';
import { formatTag, matchesTagFilter, parseTagFilter, parseTags } from './tags.js';
import type { Tag } from './types.js';

describe('parseTags: the six forms of SPEC 2.9', () => {
  it.each<[string, unknown, Tag[]]>([
    ['space-separated key=value string', 'env=Prod team=data', [{ key: 'env', value: 'prod' }, { key: 'team', value: 'data' }]],
    ['comma-separated plain tags', 'critical, Batch', [{ key: 'critical' }, { key: 'batch' }]],
    ['map', { env: 'prod', critical: null }, [{ key: 'env', value: 'prod' }, { key: 'critical' }]],
    ['array of strings', ['env=prod', 'critical'], [{ key: 'env', value: 'prod' }, { key: 'critical' }]],
    ['array of single-entry maps', [{ env: 'prod' }, { tier: 1 }], [{ key: 'env', value: 'prod' }, { key: 'tier', value: '1' }]],
    ['mixed array', ['critical', { env: 'prod' }, 'path=a/b.c'], [{ key: 'critical' }, { key: 'env', value: 'prod' }, { key: 'path', value: 'a/b.c' }]],
    ['duplicates dropped', 'a a=1 a a=1', [{ key: 'a' }, { key: 'a', value: '1' }]],
    ['empty value kept', 'env=', [{ key: 'env', value: '' }]],
  ])('%s', (_name, raw, expected) => {
    const problems = new Problems();
    expect(parseTags(raw, 'tags', problems)).toEqual(expected);
    expect(problems.list).toEqual([]);
  });

  it.each<[unknown, string]>([
    ['-lead', 'tags: invalid tag key "-lead"'],
    [['ok', 'a=b c'], 'tags[1]: invalid tag value "b c"'],
    [['k=v!'], 'tags[0]: invalid tag value "v!"'],
    [{ [`k${'x'.repeat(63)}`]: 'v' }, 'invalid tag key'],
    [`k=${'v'.repeat(256)}`, 'invalid tag value'],
  ])('rejects %j', (raw, message) => {
    const problems = new Problems();
    parseTags(raw, 'tags', problems);
    expect(problems.list.join('\n')).toContain(message);
  });
});

describe('tag filter', () => {
  const tags: Tag[] = [{ key: 'env', value: 'prod' }, { key: 'critical' }, { key: 'team', value: 'data-eng' }];

  it.each<[string, boolean]>([
    ['', true],
    ['env', true],
    ['ENV=PROD', true],
    ['env=dev', false],
    ['!deprecated', true],
    ['!critical', false],
    ['env=prod,critical', true],
    ['env=prod,!critical', false],
    ['team=data-*', true],
    ['team=data-en?', true],
    ['te*', true],
    ['crit?cal', true],
    ['critical=x', false],
    ['!e*', false],
    [' env , team ', true],
  ])('%j -> %s', (expr, expected) => {
    const f = parseTagFilter(expr);
    if ('error' in f) throw new Error(f.error);
    expect(matchesTagFilter(tags, f)).toBe(expected);
  });

  it.each(['a b', '!', 'k=v v', '=v'])('rejects %j', (expr) => {
    expect(parseTagFilter(expr)).toHaveProperty('error');
  });

  it('formats tags', () => {
    expect(formatTag({ key: 'env', value: 'prod' })).toBe('env=prod');
    expect(formatTag({ key: 'critical' })).toBe('critical');
  });
});
