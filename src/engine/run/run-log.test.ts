import { mkDag, mkStep, simulate, byNode } from '../../core/run/testkit.js';
import { newRunState } from '../../core/run/state.js';
import { runLogLines } from './run-log.js';

describe('run log lines', () => {
  test('describe each status change of the run and its steps', () => {
    const dag = mkDag([mkStep('a', { retryPolicy: { limit: 1, intervalSec: 1, backoff: 1, maxIntervalSec: 0, exitCode: [] } })]);
    const done = simulate(dag, byNode({ a: [{ result: { exitCode: 1 } }, { result: { exitCode: 0 } }] })).state;
    const lines = runLogLines(newRunState(dag), done);
    expect(lines).toEqual(['step a succeeded', 'run succeeded']);
    const mid = { ...done, status: 1, nodes: [{ ...done.nodes[0]!, status: 1, nextAt: '2026-01-01T00:00:00.000Z', retryCount: 1 }] };
    expect(runLogLines(newRunState(dag), mid)).toEqual(['run running', 'step a waits until 2026-01-01T00:00:00.000Z (retry 1)']);
    expect(runLogLines(done, done)).toEqual([]);
  });
});

describe('RunLogWriter', () => {
  test('appends the lines of one turn together, in order, after the turn; flush waits for them', async () => {
    const { RunLogWriter } = await import('./run-log.js');
    const written: string[] = [];
    let now = Date.parse('2026-01-02T03:04:05.000Z');
    const w = new RunLogWriter(async (t) => { written.push(t); }, { now: () => now });
    w.add(['a', 'b']);
    w.add([]);
    now += 1000;
    w.add(['c']);
    expect(written).toEqual([]);
    await w.flush();
    expect(written).toEqual(['2026-01-02T03:04:05.000Z a\n2026-01-02T03:04:05.000Z b\n2026-01-02T03:04:06.000Z c\n']);
    w.add(['d']);
    await w.flush();
    expect(written[1]).toBe('2026-01-02T03:04:06.000Z d\n');
  });

  test('a node matched by name when the order differs', () => {
    const dag = mkDag([mkStep('a'), mkStep('b')]);
    const before = newRunState(dag);
    const after = { ...before, nodes: [{ ...before.nodes[1]!, status: 4 }, { ...before.nodes[0]! }] };
    expect(runLogLines(before, after)).toEqual(['step b succeeded']);
  });
});
