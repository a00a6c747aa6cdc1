/** A reader that sees a run finished finds its outputs.json: it is written before the final status is saved. */
import { RunService } from '../../src/engine/services/run-service.js';
import { isRunTerminal } from '../../src/core/run/status.js';
import type { DagRunResource } from '../../src/core/resources.js';
import { create, keyOf, memoryDeps, world } from './memory-world.js';

test('every saved terminal status already has its outputs.json', async () => {
  const w = world((req) => ({ exitCode: 0, output: `out-${req.identity.node}` }));
  const checks: Array<Promise<unknown>> = [];
  const onChange = (run: DagRunResource): void => {
    if (isRunTerminal(run.status.run.status)) checks.push(w.logs.readOutputs(keyOf(run), run.status.attemptId));
  };
  const runs = new RunService({ ...memoryDeps(w, 1), onChange });
  const run = await create(runs, 'steps:\n  - name: a\n    command: x\n    output: A_OUT\n');
  await runs.drive(keyOf(run));
  expect(checks.length).toBeGreaterThan(0);
  for (const body of await Promise.all(checks)) expect(body).toMatchObject({ outputs: { aOut: 'out-a' } });
});
