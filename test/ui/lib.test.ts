/** The UI's pure helpers: graph layout, the DAG list's tag terms, log pages, statuses, formatting. */
import { withTag } from '../../src/ui/lib/filter';
import { logPlace, logQuery, TAIL } from '../../src/ui/lib/log-window';
import { exitCodeOf, formatDuration } from '../../src/ui/lib/format';
import { layoutSteps, NODE_WIDTH } from '../../src/ui/lib/layout';
import { isActive, isLive, labelText, toneOf } from '../../src/ui/lib/status';
import { parseFrame } from '../../src/ui/api/events';
import { fileNameProblem } from '../../src/ui/lib/names';
import { groupQueues } from '../../src/ui/lib/queues';
import { MIN_WIDTH, timeline } from '../../src/ui/lib/timeline';
import type { DagRunSummary } from '../../src/ui/api/types';

describe('layoutSteps', () => {
  test('places a diamond left to right, each dependency before its dependents', () => {
    const l = layoutSteps([
      { name: 'checkout', depends: [] },
      { name: 'lint', depends: ['checkout'] },
      { name: 'test', depends: ['checkout'] },
      { name: 'package', depends: ['lint', 'test'] },
    ]);
    const x = Object.fromEntries(l.nodes.map((n) => [n.name, n.x]));
    expect(x.checkout! + NODE_WIDTH).toBeLessThanOrEqual(x.lint!);
    expect(x.lint).toBe(x.test);
    expect(x.lint! + NODE_WIDTH).toBeLessThanOrEqual(x.package!);
    expect(l.edges).toHaveLength(4);
    expect(l.width).toBeGreaterThan(3 * NODE_WIDTH);
  });

  test('leaves out dependencies on steps that do not exist, and self-loops', () => {
    const l = layoutSteps([{ name: 'a', depends: ['ghost', 'a'] }, { name: 'b' }]);
    expect(l.nodes.map((n) => n.name)).toEqual(['a', 'b']);
    expect(l.edges).toEqual([]);
  });
});

test.each([
  ['', 'env=prod', 'env=prod'],
  ['team-a', 'env=prod', 'team-a,env=prod'],
  [' env=prod , !draft', 'env=prod', 'env=prod,!draft'],
  ['env=prod', 'critical', 'env=prod,critical'],
])('a tag clicked in the DAG list: %j with %j is %j', (expression, tag, expected) => {
  expect(withTag(expression, tag)).toBe(expected);
});

describe('logPlace: where a log page is, and the pages around it (2,000 lines a page)', () => {
  const page = (lineCount: number, totalLines: number) => ({ lineCount, totalLines });
  test.each([
    ['the tail of a short log: nothing around it', TAIL, page(10, 10), { first: 1, last: 10 }],
    ['an empty log', TAIL, page(0, 0), { first: 0, last: 0 }],
    ['the tail of 5,000 lines: an earlier page ending where it starts', TAIL, page(2000, 5000), { first: 3001, last: 5000, earlier: { at: 1001 } }],
    ['the tail of 2,500 lines: the earlier page is the head', TAIL, page(2000, 2500), { first: 501, last: 2500, earlier: { at: 1 } }],
    ['the head of 5,000 lines: only a later page', { at: 1 }, page(2000, 5000), { first: 1, last: 2000, later: { at: 2001 } }],
    ['a middle page', { at: 1001 }, page(2000, 5000), { first: 1001, last: 3000, earlier: { at: 1 }, later: { at: 3001 } }],
    ['the last page by offset: no later one until the step writes more', { at: 4001 }, page(1000, 5000), { first: 4001, last: 5000, earlier: { at: 2001 } }],
  ] as const)('%s', (_title, w, p, expected) => {
    expect(logPlace(w, p, 2000)).toEqual(expected);
  });
  test('the query of a window: the tail, or offset and limit', () => {
    expect(logQuery(TAIL, 2000)).toEqual({ tail: 2000 });
    expect(logQuery({ at: 4001 }, 2000)).toEqual({ offset: 4001, limit: 2000 });
  });
});

test.each([
  ['running', true, 'run'],
  ['queued', true, 'wait'],
  ['waiting', true, 'wait'],
  ['succeeded', false, 'ok'],
  ['failed', false, 'fail'],
  ['partially_succeeded', false, 'warn'],
  ['skipped', false, 'skip'],
] as const)('status %s: active %s, tone %s', (label, active, tone) => {
  expect(isActive(label)).toBe(active);
  expect(toneOf(label)).toBe(tone);
});

test.each([
  [{ dagRunId: '', statusLabel: 'not_started' }, false],
  [{ dagRunId: 'r1', statusLabel: 'not_started' }, true],
  [{ dagRunId: 'r1', statusLabel: 'running' }, true],
  [{ dagRunId: 'r1', statusLabel: 'succeeded' }, false],
] as const)('a run %j is live: %s', (run, live) => {
  expect(isLive(run)).toBe(live);
});

test('labels read as words', () => {
  expect(labelText('partially_succeeded')).toBe('partially succeeded');
  expect(labelText(undefined)).toBe('not started');
});

test.each([
  [0, '0ms'], [950, '950ms'], [1000, '1s'], [61_000, '1m 1s'], [3_723_000, '1h 2m 3s'], [3_600_000, '1h 0m 0s'],
])('formatDuration(%d) = %s', (ms, text) => {
  expect(formatDuration(ms)).toBe(text);
});

test.each([
  [{ statusLabel: 'failed', error: 'exit status 3' }, 3],
  [{ statusLabel: 'succeeded', error: '' }, 0],
  [{ statusLabel: 'running', error: '' }, undefined],
  [{ statusLabel: 'failed', error: 'timed out' }, undefined],
  [{ statusLabel: 'failed', error: 'x', exitCode: 7 }, 7],
])('exitCodeOf(%j) = %s', (node, code) => {
  expect(exitCodeOf(node)).toBe(code);
});

describe('parseFrame (server-sent events)', () => {
  test('event name and data lines; heartbeats and ids carry no event', () => {
    expect(parseFrame('id: 3\nevent: dag-run\ndata: {"a":1}')).toEqual({ event: 'dag-run', data: '{"a":1}' });
    expect(parseFrame('data: one\ndata: two')).toEqual({ event: 'message', data: 'one\ntwo' });
    expect(parseFrame(': heartbeat')).toBeUndefined();
    expect(parseFrame('retry: 3000')).toBeUndefined();
  });
});

describe('fileNameProblem', () => {
  test('the rules of a DAG file name, as the server keeps them', () => {
    expect(fileNameProblem('nightly_build-2')).toBeUndefined();
    expect(fileNameProblem('')).toBe('A name is required.');
    expect(fileNameProblem('a'.repeat(40))).toBeUndefined();
    expect(fileNameProblem('a'.repeat(41))).toBe('At most 40 characters (this one has 41).');
    expect(fileNameProblem('my dag.v2')).toBe('Only letters, digits, "_" and "-": not a space, ".".');
    expect(fileNameProblem('tags')).toBe('"tags" is reserved (it names an endpoint under /dags).');
    expect(fileNameProblem('hello', new Set(['hello']))).toBe('A DAG named hello exists already.');
  });
});

describe('groupQueues', () => {
  const run = (name: string, dagRunId: string, statusLabel: DagRunSummary['statusLabel'], queuedAt: string, startedAt = ''): DagRunSummary => ({
    rootDAGRunName: name, rootDAGRunId: dagRunId, parentDAGRunName: '', parentDAGRunId: '', dagRunId, name, status: 0, statusLabel,
    queuedAt, startedAt, finishedAt: '', log: '', params: '',
  });
  test('runs by the named queue of their DAG, else their DAG\'s own; queued first in, first out', () => {
    const runs = [
      run('etl', 'e-2', 'queued', '2026-01-01T00:00:02Z'), run('etl', 'e-1', 'running', '2026-01-01T00:00:01Z', '2026-01-01T00:00:01Z'),
      run('load', 'l-1', 'queued', '2026-01-01T00:00:01Z'), run('solo', 's-1', 'waiting', '', '2026-01-01T00:00:00Z'),
      run('free', 'f-1', 'running', '', '2026-01-01T00:00:00Z'),
    ];
    const info = new Map([['etl', { queue: 'batch' }], ['load', { queue: 'batch' }], ['solo', { maxActiveRuns: 0 }], ['free', { maxActiveRuns: -1 }]]);
    const qs = groupQueues(runs, info);
    expect(qs.map((q) => [q.name, q.kind, q.limit, q.running.map((r) => r.dagRunId), q.queued.map((r) => r.dagRunId)])).toEqual([
      ['batch', 'named', undefined, ['e-1'], ['l-1', 'e-2']],
      ['free', 'dag', 'unlimited', ['f-1'], []],
      ['solo', 'dag', 1, ['s-1'], []],
    ]);
  });
});

describe('timeline', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  test('bars from each start to its finish, in percent of the span from the first start to the last end', () => {
    const t = timeline([
      { name: 'a', startedAt: at(0), finishedAt: at(10) },
      { name: 'b', startedAt: at(10), finishedAt: at(20) },
      { name: 'c', startedAt: '', finishedAt: '' },
    ], Date.UTC(2026, 0, 1, 1));
    expect(t.spanMs).toBe(20_000);
    expect(t.bars.map((b) => [b.name, b.left, b.width, b.open])).toEqual([['a', 0, 50, false], ['b', 50, 50, false], ['c', 0, 0, false]]);
    expect(t.bars[2]?.fromMs).toBeUndefined();
  });

  test('an unfinished step runs to now; a very short one keeps a visible width; nothing started is no span', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 100);
    const t = timeline([{ name: 'long', startedAt: at(0), finishedAt: '' }, { name: 'blink', startedAt: at(50), finishedAt: at(50) }], now);
    expect(t.bars[0]).toMatchObject({ left: 0, width: 100, open: true, toMs: 100_000 });
    expect(t.bars[1]).toMatchObject({ left: 50, width: MIN_WIDTH, open: false });
    expect(timeline([{ name: 'x', startedAt: '', finishedAt: '' }], now).startMs).toBeUndefined();
  });
});
