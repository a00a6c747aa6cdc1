import { parseDurationMs } from './blocks.js';
import { Problems } from './errors.js';
import { parseDotenv, parseEnv, parseParams, parseShell } from './params.js';
import { parseSchedule } from './schedule.js';
import { findCycles } from './steps.js';

describe('params', () => {
  it.each<[unknown, unknown]>([
    ['a b', [{ default: 'a' }, { default: 'b' }]],
    ['K=v Q="x \\"y\\" z" `echo a b`', [{ name: 'K', default: 'v' }, { name: 'Q', default: 'x "y" z' }, { default: '`echo a b`' }]],
    [{ A: 1, B: null, C: true }, [{ name: 'A', default: '1' }, { name: 'B', default: '' }, { name: 'C', default: 'true' }]],
    [['NAME', 'K=v', { X: 'y' }], [{ name: 'NAME', default: '' }, { name: 'K', default: 'v' }, { name: 'X', default: 'y' }]],
  ])('%j', (raw, expected) => {
    const problems = new Problems();
    expect(parseParams(raw, 'params', problems)).toEqual(expected);
    expect(problems.list).toEqual([]);
  });
});

describe('env and dotenv and shell', () => {
  it('keeps list order and accepts both list forms', () => {
    const problems = new Problems();
    expect(parseEnv([{ B: 2 }, 'A=x=y', { C: null }], 'env', problems)).toEqual([
      { name: 'B', value: '2' }, { name: 'A', value: 'x=y' }, { name: 'C', value: '' },
    ]);
    expect(problems.list).toEqual([]);
  });

  it.each<[unknown, string[]]>([
    [undefined, ['.env']], ['x.env', ['.env', 'x.env']], [['a', '.env', 'a'], ['.env', 'a']], [[], []],
  ])('dotenv %j', (raw, expected) => expect(parseDotenv(raw)).toEqual(expected));

  it.each<[unknown, string[] | undefined]>([
    ['bash -e', ['bash', '-e']], [['sh', '-c'], ['sh', '-c']], ['', undefined], ['"/my shell" -x', ['/my shell', '-x']],
  ])('shell %j', (raw, expected) => expect(parseShell(raw)).toEqual(expected));
});

describe('schedule', () => {
  it.each<[unknown, string]>([
    ['@daily', 'descriptors such as @daily are not supported'],
    ['0 0 0 * * *', 'must have 5 fields'],
    ['* * * *', 'must have 5 fields'],
    ['0 25 * * *', 'Constraint error'],
    ['CRON_TZ=Nowhere/City 0 0 * * *', 'unknown time zone'],
  ])('rejects %j', (raw, message) => {
    const problems = new Problems();
    parseSchedule(raw, 'schedule', problems);
    expect(problems.list.join('\n')).toContain(message);
  });

  it('accepts arrays and zone prefixes', () => {
    const problems = new Problems();
    const s = parseSchedule(['TZ=Asia/Tokyo 0 9 * * MON-FRI', '*/5 * * * *'], 'schedule', problems);
    expect(problems.list).toEqual([]);
    expect(s.start.map((e) => [e.expression, e.timezone])).toEqual([['0 9 * * MON-FRI', 'Asia/Tokyo'], ['*/5 * * * *', undefined]]);
  });
});

describe('durations and cycles', () => {
  it.each<[string, number | undefined]>([['30s', 30000], ['1m30s', 90000], ['500ms', 500], ['1h', 3600000], ['soon', undefined]])(
    'parseDurationMs(%j)', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it('finds each cycle once, also in long chains', () => {
    const n = 20000;
    const steps = Array.from({ length: n }, (_, i) => ({ name: `s${i}`, depends: i === 0 ? [`s${n - 1}`] : [`s${i - 1}`] }));
    const cycles = findCycles(steps);
    expect(cycles).toHaveLength(1);
    expect(findCycles([{ name: 'a', depends: ['b'] }, { name: 'b', depends: [] }])).toEqual([]);
  });
});
