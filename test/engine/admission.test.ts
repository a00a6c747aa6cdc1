/**
 * Admissions that check singleton or maxActiveRuns in two processes over one store (API replicas): the
 * AdmissionLock keeps their check-and-create pairs apart; starts without a check never take it.
 */
import type { AdmissionLock } from '../../src/core/ports/admission.js';
import { parseDagText } from '../../src/core/spec/load.js';
import { LaunchService } from '../../src/engine/services/launch-service.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { memoryDeps, world, type Shared } from './memory-world.js';

/** One lock shared by the "processes" (what the Lease is on Kubernetes), counting its holds. */
function sharedLock(): AdmissionLock & { holds: string[] } {
  let turn: Promise<unknown> = Promise.resolve();
  const holds: string[] = [];
  return {
    holds,
    hold<T>(name: string, fn: () => Promise<T>): Promise<T> {
      holds.push(name);
      const mine = turn.catch(() => undefined).then(fn);
      turn = mine;
      return mine;
    },
  };
}

function replica(w: Shared, pid: number, admission?: AdmissionLock): LaunchService {
  const deps = { ...memoryDeps(w, pid), ...(admission ? { admission } : {}) };
  return new LaunchService(deps, new RunService(deps), { drives: false });
}

const dag = parseDagText('name: once\nsteps:\n  - name: a\n    command: x\n', 'mem');

async function singletonStarts(replicas: LaunchService[]): Promise<number> {
  const answers = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => replicas[i % replicas.length]!.start(dag, { trigger: 'manual', singleton: true })));
  for (const a of answers) if (a.status === 'rejected') expect((a.reason as { code: string }).code).toBe('already_running');
  return answers.filter((a) => a.status === 'fulfilled').length;
}

test('without a lock across processes, two replicas both admit a singleton run (the race the lock closes)', async () => {
  const w = world();
  expect(await singletonStarts([replica(w, 1), replica(w, 2)])).toBeGreaterThan(1);
});

test('with the lock, concurrent singleton starts through two replicas admit exactly one run', async () => {
  const w = world();
  const lock = sharedLock();
  expect(await singletonStarts([replica(w, 1, lock), replica(w, 2, lock)])).toBe(1);
  expect((await w.store.list({ dagName: 'once' }))).toHaveLength(1);
  expect(lock.holds).toEqual(Array(8).fill('once'));
});

test('a start without singleton or maxActiveRuns to check does not take the lock', async () => {
  const w = world();
  const lock = sharedLock();
  await replica(w, 1, lock).start(dag, { trigger: 'manual' });
  expect(lock.holds).toEqual([]);
  await replica(w, 1, lock).start(dag, { trigger: 'manual', capacity: true, dagRunId: 'second' }).catch(() => undefined);
  expect(lock.holds).toEqual(['once']);
});
