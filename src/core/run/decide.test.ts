import { byNode, mkDag, mkStep, simulate } from './testkit.js';
import { NodeStatus, RunStatus, runStatusLabel } from './status.js';
import { handlerRunStatus } from './lifecycle.js';
import type { RunState } from './state.js';

const st = (s: RunState, name: string) => s.nodes.find((n) => n.name === name)!;
const fail = (exitCode = 1) => ({ result: { exitCode } });
const ok = (output?: string) => ({ result: { exitCode: 0, ...(output !== undefined ? { output } : {}) } });

describe('decide: dependencies and statuses', () => {
  test('chain of steps runs in order and succeeds', () => {
    const dag = mkDag([mkStep('a'), mkStep('b', { depends: ['a'] }), mkStep('c', { depends: ['b'] })]);
    const r = simulate(dag, byNode({}));
    expect(r.state.status).toBe(RunStatus.Succeeded);
    expect(r.started.map((s) => s.key)).toEqual(['a#0', 'b#0', 'c#0']);
    expect(r.state.nodes.every((n) => n.status === NodeStatus.Succeeded)).toBe(true);
    expect(r.state.finishedAt).not.toBe('');
  });

  test('dependants of a failed step are aborted with upstream failed; run fails', () => {
    const dag = mkDag([mkStep('a'), mkStep('b', { depends: ['a'] }), mkStep('c', { depends: ['b'] })]);
    const r = simulate(dag, byNode({ a: fail(3) }));
    expect(r.state.status).toBe(RunStatus.Failed);
    expect(st(r.state, 'a')).toMatchObject({ status: NodeStatus.Failed, exitCode: 3 });
    expect(st(r.state, 'b')).toMatchObject({ status: NodeStatus.Aborted, error: 'upstream failed' });
    expect(st(r.state, 'c').status).toBe(NodeStatus.Aborted);
  });

  test('skipped step (precondition) skips dependants unless continueOn.skipped; run succeeds', () => {
    const cont = { failure: false, skipped: true, exitCode: [], output: [], markSuccess: false };
    const dag = mkDag([mkStep('a'), mkStep('b', { depends: ['a'] }), mkStep('x'), mkStep('y', { depends: ['x'] })]);
    const dag2 = mkDag([mkStep('x', { continueOn: cont }), mkStep('y', { depends: ['x'] })]);
    const r = simulate(dag, byNode({ a: { result: { exitCode: 0, skipped: true } } }));
    expect(st(r.state, 'a').status).toBe(NodeStatus.Skipped);
    expect(st(r.state, 'b')).toMatchObject({ status: NodeStatus.Skipped, error: 'upstream skipped' });
    expect(r.state.status).toBe(RunStatus.Succeeded);
    const r2 = simulate(dag2, byNode({ x: { result: { exitCode: 0, skipped: true } } }));
    expect(st(r2.state, 'y').status).toBe(NodeStatus.Succeeded);
  });

  test('independent branches continue after a failure in another branch', () => {
    const dag = mkDag([mkStep('a'), mkStep('b')]);
    const r = simulate(dag, byNode({ a: fail() }));
    expect(st(r.state, 'b').status).toBe(NodeStatus.Succeeded);
    expect(r.state.status).toBe(RunStatus.Failed);
  });
});

describe('decide: continueOn and partial success', () => {
  const cont = (over: object) => ({ continueOn: { failure: false, skipped: false, exitCode: [], output: [], markSuccess: false, ...over } });
  test.each([
    ['failure', { failure: true }, {}],
    ['exitCode', { exitCode: [3] }, {}],
    ['output', { output: ['WARN'] }, { outputMatched: true }],
  ])('continueOn.%s lets dependants run and the run is partially_succeeded', (_n, c, extra) => {
    const dag = mkDag([mkStep('a', cont(c)), mkStep('b', { depends: ['a'] })]);
    const r = simulate(dag, byNode({ a: { result: { exitCode: 3, ...extra } } }));
    expect(st(r.state, 'a')).toMatchObject({ status: NodeStatus.Failed, continued: true });
    expect(st(r.state, 'b').status).toBe(NodeStatus.Succeeded);
    expect(r.state.status).toBe(RunStatus.PartiallySucceeded);
  });

  test('exitCode not listed does not continue', () => {
    const dag = mkDag([mkStep('a', cont({ exitCode: [3] })), mkStep('b', { depends: ['a'] })]);
    const r = simulate(dag, byNode({ a: fail(4) }));
    expect(st(r.state, 'b').status).toBe(NodeStatus.Aborted);
    expect(r.state.status).toBe(RunStatus.Failed);
  });

  test('markSuccess turns the failure into success', () => {
    const dag = mkDag([mkStep('a', cont({ failure: true, markSuccess: true })), mkStep('b', { depends: ['a'] })]);
    const r = simulate(dag, byNode({ a: fail() }));
    expect(st(r.state, 'a').status).toBe(NodeStatus.Succeeded);
    expect(r.state.status).toBe(RunStatus.Succeeded);
  });

  test('a lone failed step with continueOn.failure makes the run failed (no success to be partial of)', () => {
    const r = simulate(mkDag([mkStep('a', cont({ failure: true }))]), byNode({ a: fail() }));
    expect(r.state.status).toBe(RunStatus.Failed);
  });
});

describe('decide: retryPolicy', () => {
  const retry = (over: object = {}) => ({ retryPolicy: { limit: 3, intervalSec: 2, backoff: 1, maxIntervalSec: 0, exitCode: [], ...over } });
  test('retries until success with a constant interval', () => {
    const r = simulate(mkDag([mkStep('a', retry())]), byNode({ a: [fail(), fail(), ok()] }));
    expect(st(r.state, 'a')).toMatchObject({ status: NodeStatus.Succeeded, retryCount: 2 });
    expect(r.started.map((s) => s.at)).toEqual([0, 3000, 6000]);
  });

  test('exponential backoff interval * backoff^attempt, capped by maxIntervalSec', () => {
    const r = simulate(mkDag([mkStep('a', retry({ limit: 4, intervalSec: 1, backoff: 2, maxIntervalSec: 3 }))]), byNode({ a: fail() }));
    const gaps = r.started.slice(1).map((s, i) => s.at - r.started[i]!.at - 1000);
    expect(gaps).toEqual([1000, 2000, 3000, 3000]);
    expect(st(r.state, 'a')).toMatchObject({ status: NodeStatus.Failed, retryCount: 4 });
  });

  test('exitCode filter: only listed codes are retried', () => {
    const r = simulate(mkDag([mkStep('a', retry({ exitCode: [42] }))]), byNode({ a: [fail(42), fail(1)] }));
    expect(r.started).toHaveLength(2);
    expect(st(r.state, 'a')).toMatchObject({ status: NodeStatus.Failed, exitCode: 1, retryCount: 1 });
  });

  test('a step timeout is never retried', () => {
    const r = simulate(mkDag([mkStep('a', retry())]), byNode({ a: { result: { exitCode: 124, timedOut: true, error: 'step timed out' } } }));
    expect(r.started).toHaveLength(1);
    expect(st(r.state, 'a').status).toBe(NodeStatus.Failed);
  });
});

describe('decide: repeatPolicy', () => {
  const rep = (over: object) => ({ repeatPolicy: { mode: 'while' as const, intervalSec: 1, backoff: 1, maxIntervalSec: 0, limit: 0, exitCode: [], ...over } });
  test('while without condition repeats up to limit', () => {
    const r = simulate(mkDag([mkStep('a', rep({ limit: 3 }))]), byNode({}));
    expect(r.started).toHaveLength(3);
    expect(st(r.state, 'a')).toMatchObject({ status: NodeStatus.Succeeded, doneCount: 3 });
  });

  test('until repeats until the condition matches', () => {
    const s = (m: boolean) => ({ result: { exitCode: 0, conditionMatched: m } });
    const r = simulate(mkDag([mkStep('a', rep({ mode: 'until', condition: 'x', expected: 'y' }))]), byNode({ a: [s(false), s(false), s(true)] }));
    expect(r.started).toHaveLength(3);
  });

  test('while exitCode repeats while the exit code matches, then the last result decides', () => {
    const r = simulate(mkDag([mkStep('a', rep({ exitCode: [1] }))]), byNode({ a: [fail(1), fail(1), ok()] }));
    expect(r.started).toHaveLength(3);
    expect(st(r.state, 'a').status).toBe(NodeStatus.Succeeded);
  });

  test('backoff grows the repeat interval', () => {
    const r = simulate(mkDag([mkStep('a', rep({ limit: 4, intervalSec: 1, backoff: 3, maxIntervalSec: 5 }))]), byNode({}));
    const gaps = r.started.slice(1).map((s, i) => s.at - r.started[i]!.at - 1000);
    expect(gaps).toEqual([1000, 3000, 5000]);
  });
});

describe('decide: concurrency', () => {
  test('maxActiveSteps caps concurrent steps', () => {
    const steps = Array.from({ length: 10 }, (_, i) => mkStep(`s${i}`));
    expect(simulate(mkDag(steps, { maxActiveSteps: 3 }), byNode({})).maxConcurrent).toBe(3);
    expect(simulate(mkDag(steps, { maxActiveSteps: 1 }), byNode({})).maxConcurrent).toBe(1);
    expect(simulate(mkDag(steps, { maxActiveSteps: 0 }), byNode({})).maxConcurrent).toBe(10);
  });

  test('parallel items run with maxConcurrent, aggregate outputs, and fail when an item fails', () => {
    const step = mkStep('p', { parallel: { items: ['a', 'b', 'c', 'a'], maxConcurrent: 2 }, output: { name: 'OUT', key: 'out', omit: false } });
    const r = simulate(mkDag([step]), (e) => ({ result: { exitCode: 0, output: `item${e.item}` } }));
    const node = st(r.state, 'p');
    expect(node.items!.map((i) => i.item)).toEqual(['a', 'b', 'c']);
    expect(r.maxConcurrent).toBe(2);
    expect(node.status).toBe(NodeStatus.Succeeded);
    expect(JSON.parse(r.state.outputs.out!)).toEqual({ summary: { total: 3, succeeded: 3, failed: 0 }, results: ['item0', 'item1', 'item2'], outputs: ['item0', 'item1', 'item2'] });
    const r2 = simulate(mkDag([step]), (e) => ({ result: { exitCode: e.item === 1 ? 1 : 0 } }));
    expect(st(r2.state, 'p').status).toBe(NodeStatus.Failed);
  });

  test('parallel items from a variable are resolved through an effect', () => {
    const step = mkStep('p', { parallel: { items: '${LIST}', maxConcurrent: 0 } });
    const r = simulate(mkDag([step]), byNode({}), { items: { p: ['x', 'y'] } });
    expect(r.started.map((s) => s.key)).toEqual(['p[0]#0', 'p[1]#0']);
    expect(r.state.status).toBe(RunStatus.Succeeded);
  });
});

describe('decide: timeouts, stop and delay', () => {
  test('DAG timeout kills running steps: steps aborted (also those that never started, as the reference), run failed', () => {
    const r = simulate(mkDag([mkStep('a'), mkStep('b', { depends: ['a'] })], { timeoutSec: 5 }), byNode({ a: { hang: true } }));
    expect(r.signals).toEqual([{ key: 'a#0', signal: 'SIGKILL', at: 5000 }]);
    expect(st(r.state, 'a').status).toBe(NodeStatus.Aborted);
    expect(st(r.state, 'b').status).toBe(NodeStatus.Aborted);
    expect(r.state.status).toBe(RunStatus.Failed);
  });

  test('stop sends signalOnStop, escalates to SIGKILL after maxCleanUpTimeSec, run aborted', () => {
    const dag = mkDag([mkStep('a', { signalOnStop: 'SIGINT' })], { maxCleanUpTimeSec: 2 });
    const r = simulate(dag, () => ({ hang: true }), { inject: [{ at: 1000, obs: { type: 'stop' } }] });
    expect(r.signals[0]).toEqual({ key: 'a#0', signal: 'SIGINT', at: 1000 });
    expect(r.state.status).toBe(RunStatus.Aborted);
  });

  test('stop of a step that ignores the signal escalates to SIGKILL', () => {
    const dag = mkDag([mkStep('a')], { maxCleanUpTimeSec: 2 });
    const r = simulate(dag, () => ({ hang: true, ignoreTerm: true }), { inject: [{ at: 1000, obs: { type: 'stop' } }] });
    expect(r.signals).toEqual([{ key: 'a#0', signal: 'SIGTERM', at: 1000 }, { key: 'a#0', signal: 'SIGKILL', at: 3000 }]);
    expect(r.state.status).toBe(RunStatus.Aborted);
  });

  test('stop while a step waits for its retry interval aborts it at once', () => {
    const step = mkStep('a', { retryPolicy: { limit: 5, intervalSec: 100, backoff: 1, maxIntervalSec: 0, exitCode: [] } });
    const r = simulate(mkDag([step]), byNode({ a: fail() }), { inject: [{ at: 5000, obs: { type: 'stop' } }] });
    expect(st(r.state, 'a').status).toBe(NodeStatus.Aborted);
    expect(r.state.status).toBe(RunStatus.Aborted);
    expect(r.endedAt).toBe(5000);
  });

  test('delaySec postpones the first step', () => {
    const r = simulate(mkDag([mkStep('a')], { delaySec: 7 }), byNode({}));
    expect(r.started[0]!.at).toBe(7000);
  });
});

describe('decide: preconditions and handlers', () => {
  const handlers = () => ({
    init: mkStep('onInit'), success: mkStep('onSuccess'), failure: mkStep('onFailure'), abort: mkStep('onAbort'), exit: mkStep('onExit'),
  });
  const handlerStatus = (s: RunState) => Object.fromEntries(s.handlers.map((h) => [h.name, h.status]));

  test('success: init, steps, success handler, exit handler in that order', () => {
    const r = simulate(mkDag([mkStep('a')], { handlerOn: handlers() }), byNode({}));
    expect(r.started.map((s) => s.key)).toEqual(['onInit#0', 'a#0', 'onSuccess#0', 'onExit#0']);
    expect(handlerStatus(r.state)).toMatchObject({ onFailure: NodeStatus.NotStarted, onAbort: NodeStatus.NotStarted });
  });

  test('failure runs the failure handler; a failing exit handler keeps it failed', () => {
    const r = simulate(mkDag([mkStep('a')], { handlerOn: handlers() }), byNode({ a: fail(), onExit: fail() }));
    expect(r.started.map((s) => s.key)).toEqual(['onInit#0', 'a#0', 'onFailure#0', 'onExit#0']);
    expect(r.state.status).toBe(RunStatus.Failed);
  });

  test.each([
    ['success', {}, { onInit: 'running', onSuccess: 'succeeded', onExit: 'succeeded' }],
    ['failure', { a: fail() }, { onInit: 'running', onFailure: 'failed', onExit: 'failed' }],
    ['a failing success handler', { onSuccess: fail() }, { onInit: 'running', onSuccess: 'succeeded', onExit: 'failed' }],
    ['init failure', { onInit: fail() }, { onInit: 'running', onAbort: 'aborted', onExit: 'aborted' }],
  ])('DAG_RUN_STATUS a handler sees (%s)', (_n, scripted, expected) => {
    const seen: Record<string, string> = {};
    const script = byNode(scripted);
    simulate(mkDag([mkStep('a')], { handlerOn: handlers() }), (exec, state) => {
      if (exec.node.startsWith('on')) seen[exec.node] = runStatusLabel(handlerRunStatus(state));
      return script(exec, state);
    });
    expect(seen).toEqual(expected);
  });

  test('a failing exit handler fails a successful run', () => {
    const r = simulate(mkDag([mkStep('a')], { handlerOn: { exit: mkStep('onExit') } }), byNode({ onExit: fail() }));
    expect(r.state.status).toBe(RunStatus.Failed);
  });

  test('init failure: no steps run, run aborted, abort and exit handlers run', () => {
    const r = simulate(mkDag([mkStep('a')], { handlerOn: handlers() }), byNode({ onInit: fail() }));
    expect(r.started.map((s) => s.key)).toEqual(['onInit#0', 'onAbort#0', 'onExit#0']);
    expect(st(r.state, 'a').status).toBe(NodeStatus.NotStarted);
    expect(r.state.status).toBe(RunStatus.Aborted);
  });

  test('DAG preconditions not met: aborted, steps not started, init not run, only exit handler', () => {
    const dag = mkDag([mkStep('a')], { handlerOn: handlers(), preconditions: [{ condition: 'false', negate: false }] });
    const r = simulate(dag, byNode({}), { preconditionsMet: false });
    expect(r.started.map((s) => s.key)).toEqual(['onExit#0']);
    expect(r.state.status).toBe(RunStatus.Aborted);
    expect(r.state.error).toBe('condition not met');
  });

  test('stop runs the abort handler', () => {
    const r = simulate(mkDag([mkStep('a')], { handlerOn: handlers() }), byNode({ a: { hang: true } }), { inject: [{ at: 1500, obs: { type: 'stop' } }] });
    expect(r.started.map((s) => s.key)).toEqual(['onInit#0', 'a#0', 'onAbort#0', 'onExit#0']);
    expect(r.state.status).toBe(RunStatus.Aborted);
  });
});

describe('decide: outputs and approval', () => {
  test('captured outputs: last writer in execution order wins, omit excluded from outputs.json', () => {
    const o = (name: string, key: string, omit = false) => ({ output: { name, key, omit } });
    const dag = mkDag([mkStep('a', o('RESULT', 'result')), mkStep('b', { ...o('RESULT', 'result'), depends: ['a'] }), mkStep('c', o('SECRET_X', 'secretX', true))]);
    const r = simulate(dag, byNode({ a: { result: { exitCode: 0, output: 'first' }, durationMs: 1 }, b: ok('second'), c: { result: { exitCode: 0, output: 'hidden' }, durationMs: 5000 } }));
    expect(r.state.outputs).toEqual({ result: 'second' });
    expect(r.state.variables).toEqual({ RESULT: 'second', SECRET_X: 'hidden' });
  });

  test('approval step: run waits, wait handler fires, approve continues with inputs', () => {
    const dag = mkDag([mkStep('gate', { type: 'hitl' }), mkStep('after', { depends: ['gate'] })], { handlerOn: { wait: mkStep('onWait') } });
    const r = simulate(dag, byNode({ gate: { result: { exitCode: 0, waiting: true } } }), {
      inject: [{ at: 10_000, obs: { type: 'approve', node: 'gate', inputs: { REASON: 'ok' } } }],
    });
    expect(r.started.map((s) => s.key)).toEqual(['gate#0', 'onWait#0', 'after#0']);
    expect(r.state.variables.REASON).toBe('ok');
    expect(r.state.status).toBe(RunStatus.Succeeded);
  });

  test('rejection makes the run rejected and aborts dependants', () => {
    const dag = mkDag([mkStep('gate', { type: 'hitl' }), mkStep('after', { depends: ['gate'] })]);
    const r = simulate(dag, byNode({ gate: { result: { exitCode: 0, waiting: true } } }), {
      inject: [{ at: 5000, obs: { type: 'reject', node: 'gate', reason: 'no' } }],
    });
    expect(st(r.state, 'after').status).toBe(NodeStatus.Aborted);
    expect(r.state.status).toBe(RunStatus.Rejected);
  });

  test('stale observations of an old attempt are ignored', () => {
    const dag = mkDag([mkStep('a')]);
    const r = simulate(dag, byNode({ a: { hang: true } }), {
      inject: [{ at: 100, obs: { type: 'execFinished', exec: { node: 'a', attempt: 7 }, result: { exitCode: 0 } } }],
      maxSteps: 5,
    });
    expect(st(r.state, 'a').status).toBe(NodeStatus.Running);
  });
});
