/**
 * turn(key), as an operator's reconcile calls it: nothing kept in memory between turns, the state loaded
 * and saved with compare-and-swap each time, effects applied by the caller. On in-memory adapters.
 */
import type { Effect, Observation } from '../../src/core/run/state.js';
import { runLog } from '../../src/core/ports/log-store.js';
import { NodeStatus, RunStatus, isRunTerminal } from '../../src/core/run/status.js';
import { turn } from '../../src/engine/run/turn.js';
import type { RunKey } from '../../src/core/ports/run-store.js';
import { create, engine, keyOf, memoryDeps, world, type Shared } from './memory-world.js';

/** A stand-in for an operator: applies effects by recording them and answering with outcomes. */
function applyEffects(effects: Effect[], outcome: (node: string, attempt: number) => number, seen: string[]): Observation[] {
  const out: Observation[] = [];
  for (const e of effects) {
    if (e.kind === 'exec') {
      seen.push(`${e.exec.node}#${e.exec.attempt}`);
      const exitCode = outcome(e.exec.node, e.exec.attempt);
      out.push({ type: 'execFinished', exec: e.exec, result: exitCode === 0 ? { exitCode } : { exitCode, error: `exit status ${exitCode}` } });
    }
    if (e.kind === 'checkPreconditions') out.push({ type: 'preconditions', met: true });
  }
  return out;
}

async function reconcileUntilDone(w: Shared, key: RunKey, outcome: (node: string, attempt: number) => number, seen: string[]) {
  const deps = memoryDeps(w, 1);
  let observed: Observation[] = [];
  for (let i = 0; i < 50; i++) {
    const t = await turn(deps, key, observed);
    observed = applyEffects(t.effects, outcome, seen);
    if (isRunTerminal(t.run.status.run.status) && observed.length === 0) return t.run;
    if (observed.length === 0 && t.wakeAt) await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(t.wakeAt!) - Date.now())));
  }
  throw new Error('no end after 50 turns');
}

describe('turn(key): load, decide, save with compare-and-swap, effects out', () => {
  test('a chain with a retry reaches its end by turns alone; every turn is saved and logged', async () => {
    const w = world();
    const run = await create(engine(w, 1), 'steps:\n  - name: a\n    command: x\n    retryPolicy:\n      limit: 1\n      intervalSec: 0\n  - name: b\n    command: y\n');
    const seen: string[] = [];
    const done = await reconcileUntilDone(w, keyOf(run), (node, attempt) => (node === 'a' && attempt === 0 ? 1 : 0), seen);
    expect(done.status.run.status).toBe(RunStatus.Succeeded);
    expect(seen).toEqual(['a#0', 'a#1', 'b#0']);
    expect((await w.store.get(keyOf(run)))!.status.run.status).toBe(RunStatus.Succeeded);
    const log = await w.logs.page(runLog(keyOf(run), run.status.attemptId), {});
    expect(log?.content).toMatch(/run running\n.*step a running \(execution 1\)\n.*step a running \(execution 2\)\n.*step a succeeded\n.*step b running[^\n]*\n.*step b succeeded\n.*run succeeded\n?$/);
  });

  test('a stop request recorded by anyone is observed by the next turn: the running step is signalled', async () => {
    const w = world();
    const run = await create(engine(w, 1), 'steps:\n  - name: a\n    command: x\n');
    const deps = memoryDeps(w, 1);
    const first = await turn(deps, keyOf(run));
    expect(first.effects.map((e) => e.kind)).toContain('exec');
    await w.store.requestStop(keyOf(run));
    const second = await turn(deps, keyOf(run));
    expect(second.effects).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'signal', exec: expect.objectContaining({ node: 'a' }) })]));
    expect(second.run.status.run.stopRequestedAt).toBeTruthy();
    // Level-triggered and idempotent: a third turn with nothing new changes nothing.
    const third = await turn(deps, keyOf(run));
    expect(third.changed).toBe(false);
  });

  test('an approval is fed to decide and acknowledged only once the state is saved', async () => {
    const w = world();
    const run = await create(engine(w, 1), 'steps:\n  - name: gate\n    type: hitl\n  - name: after\n    command: x\n');
    const deps = memoryDeps(w, 1);
    const t1 = await turn(deps, keyOf(run));
    const gate = t1.effects.find((e) => e.kind === 'exec' && e.exec.node === 'gate');
    expect(gate).toBeDefined();
    // The hitl execution reports the step as waiting (what the hitl launcher's result says).
    const t2 = await turn(deps, keyOf(run), [{ type: 'execFinished', exec: (gate as Extract<Effect, { kind: 'exec' }>).exec, result: { exitCode: 0, waiting: true } }]);
    expect(t2.run.status.run.status).toBe(RunStatus.Waiting);
    await w.requests.push(keyOf(run), { type: 'approve', node: 'gate', inputs: { WHO: 'me' } });
    expect(await w.requests.pending(keyOf(run))).toHaveLength(1);
    const t3 = await turn(deps, keyOf(run));
    expect(await w.requests.pending(keyOf(run))).toHaveLength(0);
    expect(t3.run.status.run.nodes[0]).toMatchObject({ status: NodeStatus.Succeeded, approvalInputs: { WHO: 'me' } });
    expect(t3.effects.some((e) => e.kind === 'exec' && e.exec.node === 'after')).toBe(true);
    expect((await w.store.get(keyOf(run)))!.status.run.nodes[0]!.status).toBe(NodeStatus.Succeeded);
  });

  test('a write by someone else between load and save: the turn starts over from the fresh state, losing nothing', async () => {
    const w = world();
    const run = await create(engine(w, 1), 'steps:\n  - name: a\n    command: x\n');
    const deps = memoryDeps(w, 1);
    const real = w.store.updateStatus.bind(w.store);
    let interfered = false;
    w.store.updateStatus = async (key, version, status) => {
      if (!interfered) {
        interfered = true;
        const now = (await w.store.get(key))!;
        await real(key, now.metadata.resourceVersion, { ...now.status, queuedAt: '2026-01-01T00:00:00.000Z' });
      }
      return real(key, version, status);
    };
    const t = await turn(deps, keyOf(run));
    expect(interfered).toBe(true);
    expect(t.run.status.queuedAt).toBe('2026-01-01T00:00:00.000Z');
    expect(t.run.status.run.status).toBe(RunStatus.Running);
    expect(t.effects.filter((e) => e.kind === 'exec')).toHaveLength(1);
  });
});
