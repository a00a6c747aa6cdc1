import { rng } from '../spec/testing.js';
import type { Ctx } from './context.js';
import { readiness, waitsForDependency } from './schedule.js';
import { newRunState } from './state.js';
import { NodeStatus } from './status.js';
import { mkDag, mkStep } from './testkit.js';

const STATUSES = [NodeStatus.NotStarted, NodeStatus.Running, NodeStatus.Failed, NodeStatus.Aborted, NodeStatus.Succeeded,
  NodeStatus.Skipped, NodeStatus.PartiallySucceeded, NodeStatus.Waiting, NodeStatus.Rejected];

/** A random DAG (each step depends on up to three earlier ones, in any order) with random node states. */
function randomCtx(seed: number): Ctx {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const steps = Array.from({ length: 2 + Math.floor(r() * 12) }, (_, i) => {
    const depends = i === 0 ? [] : [...new Set(Array.from({ length: Math.floor(r() * 4) }, () => `s${Math.floor(r() * i)}`))];
    return mkStep(`s${i}`, { depends, continueOn: { failure: false, skipped: r() < 0.3, exitCode: [], output: [], markSuccess: false } });
  });
  const def = mkDag(steps);
  const s = newRunState(def);
  for (const n of s.nodes) {
    n.status = pick(STATUSES);
    if (n.status === NodeStatus.Failed) n.continued = r() < 0.5;
  }
  return { def, s, now: 0, nowIso: '', effects: [], wake: [], own: new Set() };
}

describe('waitsForDependency (the quick pre-check of readiness)', () => {
  test('whenever it says a node waits, readiness() says not ready and not blocked; it is not vacuous', () => {
    let waited = 0;
    let checked = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const ctx = randomCtx(seed);
      ctx.def.steps.forEach((step, i) => {
        checked += 1;
        if (!waitsForDependency(ctx, i, ctx.s.nodes[i]!)) return;
        waited += 1;
        expect({ seed, step: step.name, r: readiness(ctx, step) }).toEqual({ seed, step: step.name, r: { ready: false } });
      });
    }
    // Most waits are caught by the pre-check: it skips every node behind an unfinished dependency whose
    // earlier dependencies all succeeded.
    expect(waited).toBeGreaterThan(checked / 10);
  });

  test('a node laid out differently from the definition, or with an unknown dependency, is left to readiness()', () => {
    const ctx = randomCtx(7);
    const def = mkDag([mkStep('a'), mkStep('b', { depends: ['a'] }), mkStep('c', { depends: ['zz'] })]);
    const s = newRunState(def);
    const c = { ...ctx, def, s };
    expect(waitsForDependency(c, 1, s.nodes[1]!)).toBe(true);
    expect(waitsForDependency(c, 2, s.nodes[2]!)).toBe(false);
    s.nodes.reverse();
    expect(waitsForDependency(c, 1, s.nodes[1]!)).toBe(false);
    expect(waitsForDependency(c, 0, s.nodes[0]!)).toBe(false);
  });
});
