import { cloneNode, cloneState } from './clone.js';
import { decide } from './decide.js';
import { newRunState } from './state.js';
import { NodeStatus } from './status.js';
import { byNode, deepFreeze, mkDag, mkStep, simulate } from './testkit.js';

const finishedState = () => {
  const dag = mkDag([mkStep('p', { parallel: { items: ['a', 'b'], maxConcurrent: 0 }, output: { name: 'O', key: 'o', omit: false } }), mkStep('q')]);
  const s = structuredClone(simulate(dag, byNode({})).state);
  s.nodes[0]!.approvalInputs = { X: '1' };
  s.nodes[0]!.subRuns = [{ dagRunId: 'c', name: 'child', params: '', status: 4 }];
  return s;
};

describe('cloneNode', () => {
  test('a deep, independent copy equal to structuredClone', () => {
    const s = finishedState();
    const n = s.nodes[0]!;
    const c = cloneNode(n);
    expect(c).toEqual(structuredClone(n));
    c.items![0]!.status = 2;
    c.subRuns[0]!.status = 2;
    c.approvalInputs!.X = '2';
    expect(n.items![0]!.status).toBe(4);
    expect(n.subRuns[0]!.status).toBe(4);
    expect(n.approvalInputs!.X).toBe('1');
  });
});

describe('cloneState', () => {
  test('new arrays and maps holding the same node objects', () => {
    const s = finishedState();
    const c = cloneState(s);
    expect(c).toEqual(s);
    expect(c.nodes).not.toBe(s.nodes);
    expect(c.nodes[0]).toBe(s.nodes[0]);
    c.variables.O = 'changed';
    c.outputs.o = 'changed';
    expect(s.variables.O).not.toBe('changed');
    expect(s.outputs.o).not.toBe('changed');
  });
});

describe('decide() copies on write', () => {
  test('only the nodes a call changes are new objects; the previous state is left as it was', () => {
    const dag = mkDag(['a', 'b', 'c', 'd'].map((n, i) => mkStep(n, i ? { depends: [['a', 'b', 'c', 'd'][i - 1]!] } : {})));
    const s0 = deepFreeze(decide(dag, newRunState(dag), [], 0).state);
    expect(s0.nodes.map((n) => n.status)).toEqual([NodeStatus.Running, 0, 0, 0]);
    const before = structuredClone(s0);
    const s1 = decide(dag, s0, [{ type: 'execFinished', exec: { node: 'a', attempt: 0 }, result: { exitCode: 0 } }], 10).state;
    expect(s0).toEqual(before);
    expect(s1.nodes.map((n) => n.status)).toEqual([NodeStatus.Succeeded, NodeStatus.Running, 0, 0]);
    expect(s1.nodes[0]).not.toBe(s0.nodes[0]);
    expect(s1.nodes[1]).not.toBe(s0.nodes[1]);
    expect(s1.nodes[2]).toBe(s0.nodes[2]);
    expect(s1.nodes[3]).toBe(s0.nodes[3]);
  });

  test('a running parallel node with nothing due or startable is not copied; one whose item finishes is', () => {
    const dag = mkDag([mkStep('p', { parallel: { items: ['a', 'b', 'c'], maxConcurrent: 2 } })]);
    const s0 = deepFreeze(decide(dag, newRunState(dag), [], 0).state);
    expect(s0.nodes[0]!.items!.map((i) => i.status)).toEqual([NodeStatus.Running, NodeStatus.Running, 0]);
    expect(decide(dag, s0, [], 5).state.nodes[0]).toBe(s0.nodes[0]);
    const s1 = decide(dag, s0, [{ type: 'execFinished', exec: { node: 'p', item: 0, attempt: 0 }, result: { exitCode: 0 } }], 10).state;
    expect(s1.nodes[0]).not.toBe(s0.nodes[0]);
    expect(s1.nodes[0]!.items!.map((i) => i.status)).toEqual([NodeStatus.Succeeded, NodeStatus.Running, NodeStatus.Running]);
    expect(s0.nodes[0]!.items!.map((i) => i.status)).toEqual([NodeStatus.Running, NodeStatus.Running, 0]);
  });

  test('a state whose nodes are not in the order of the steps is still found by name', () => {
    const dag = mkDag([mkStep('a'), mkStep('b', { depends: ['a'] })]);
    const s0 = newRunState(dag);
    s0.nodes.reverse();
    const s1 = deepFreeze(decide(dag, s0, [], 0).state);
    expect(s1.nodes.map((n) => [n.name, n.status])).toEqual([['b', 0], ['a', NodeStatus.Running]]);
    const s2 = decide(dag, s1, [{ type: 'execFinished', exec: { node: 'a', attempt: 0 }, result: { exitCode: 0 } }], 10).state;
    expect(s2.nodes.map((n) => [n.name, n.status])).toEqual([['b', NodeStatus.Running], ['a', NodeStatus.Succeeded]]);
  });
});
