import { mkDag, mkStep, simulate, byNode } from '../core/run/testkit.js';
import { newRunState } from '../core/run/state.js';
import { runLogLines } from './run-log.js';

describe('run log lines', () => {
  test('describe each status change of the run and its steps', () => {
    const dag = mkDag([mkStep('a', { retryPolicy: { limit: 1, intervalSec: 1, backoff: 1, maxIntervalSec: 0, exitCode: [] } })]);
    const done = simulate(dag, byNode({ a: [{ result: { exitCode: 1 } }, { result: { exitCode: 0 } }] })).state;
    const lines = runLogLines(newRunState(dag), done);
    expect(lines).toEqual(['run succeeded', 'step a succeeded']);
    const mid = { ...done, status: 1, nodes: [{ ...done.nodes[0]!, status: 1, nextAt: '2026-01-01T00:00:00.000Z', retryCount: 1 }] };
    expect(runLogLines(newRunState(dag), mid)).toEqual(['run running', 'step a waits until 2026-01-01T00:00:00.000Z (retry 1)']);
    expect(runLogLines(done, done)).toEqual([]);
  });
});
