/** LaunchService maxDriving (the operator's SVC_MAX_ACTIVE_RUNS): at most N runs driven, the rest wait their turn, oldest first. */
import { RunStatus } from '../../src/core/run/status.js';
import type { EngineDeps } from '../../src/engine/deps.js';
import { LaunchService } from '../../src/engine/services/launch-service.js';
import { create, engine, keyOf, until, world } from './memory-world.js';

test('two slots: the third run waits (visibly) until a slot frees, then runs; nothing runs twice', async () => {
  const w = world(() => 'hold');
  const runs = engine(w, 1);
  const deps = (runs as unknown as { deps: EngineDeps }).deps;
  const launcher = new LaunchService(deps, runs, { drives: true, maxDriving: 2 });
  const made = [];
  for (const name of ['a', 'b', 'c']) made.push(await create(runs, `name: d${name}\nsteps:\n  - name: ${name}\n    command: x\n`));
  for (const r of made) launcher.drive(keyOf(r));
  launcher.drive(keyOf(made[2]!)); // asked twice: still one waiting entry
  await until(w.store, made[0]!, (r) => r.status.run.status === RunStatus.Running);
  await until(w.store, made[1]!, (r) => r.status.run.status === RunStatus.Running);
  expect(launcher.driving).toBe(2);
  expect(launcher.waitingToDrive).toBe(1);
  expect(launcher.isDriving(keyOf(made[2]!))).toBe(true);
  expect((await w.store.get(keyOf(made[2]!)))!.status.run.status).toBe(RunStatus.NotStarted);
  expect(w.executor.holding('c')).toBe(0);
  w.executor.finish('a');
  await until(w.store, made[0]!, (r) => r.status.run.status === RunStatus.Succeeded);
  await until(w.store, made[2]!, (r) => r.status.run.status === RunStatus.Running);
  expect(launcher.waitingToDrive).toBe(0);
  w.executor.finish('b');
  w.executor.finish('c');
  for (const r of made) await until(w.store, r, (x) => x.status.run.status === RunStatus.Succeeded);
  expect(w.executor.starts).toHaveLength(3);
});
