import { makeRun } from '../../src/adapters/store/conformance.js';
import { overflowedStatus } from '../../src/core/run/overflow.js';
import { NodeStatus, RunStatus } from '../../src/core/run/status.js';

test('an overflowed status: failed, saying why, values dropped, running steps failed, finished ones kept', () => {
  const run = makeRun({ dagRunId: 'r' });
  const base = run.status.run.nodes[0]!;
  run.status.run.nodes = [
    { ...base, name: 'done', status: NodeStatus.Succeeded, output: 'big' },
    { ...base, name: 'live', status: NodeStatus.Running, items: [{ index: 0, item: 'x', status: NodeStatus.Running, attempt: 1, retryCount: 0, error: '', output: 'o' }] },
  ];
  run.status.run.variables = { BIG: 'big' };
  run.status.run.outputs = { big: 'big' };
  const s = overflowedStatus(run.status, 'too large', '2026-01-01T00:00:00.000Z').run;
  expect([s.status, s.stage, s.error]).toEqual([RunStatus.Failed, 'done', expect.stringMatching(/^too large; .*captured values dropped/)]);
  expect([s.variables, s.outputs]).toEqual([{}, {}]);
  expect(s.nodes.map((n) => [n.name, n.status, n.output])).toEqual([['done', NodeStatus.Succeeded, undefined], ['live', NodeStatus.Failed, undefined]]);
  expect(s.nodes[1]!.items![0]!.output).toBeUndefined();
});
