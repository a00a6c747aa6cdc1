import { cloneState } from './clone.js';
import { byNode, mkDag, mkStep, simulate } from './testkit.js';

describe('cloneState', () => {
  test('a deep, independent copy equal to structuredClone', () => {
    const dag = mkDag([mkStep('p', { parallel: { items: ['a', 'b'], maxConcurrent: 0 }, output: { name: 'O', key: 'o', omit: false } }), mkStep('q')]);
    const s = simulate(dag, byNode({})).state;
    s.nodes[0]!.approvalInputs = { X: '1' };
    s.nodes[0]!.subRuns = [{ dagRunId: 'c', name: 'child', params: '', status: 4 }];
    const c = cloneState(s);
    expect(c).toEqual(structuredClone(s));
    c.nodes[0]!.items![0]!.status = 2;
    c.nodes[0]!.subRuns[0]!.status = 2;
    c.nodes[0]!.approvalInputs!.X = '2';
    c.variables.O = 'changed';
    c.outputs.o = 'changed';
    expect(s.nodes[0]!.items![0]!.status).toBe(4);
    expect(s.nodes[0]!.subRuns[0]!.status).toBe(4);
    expect(s.nodes[0]!.approvalInputs!.X).toBe('1');
    expect(s.variables.O).not.toBe('changed');
    expect(s.outputs.o).not.toBe('changed');
  });
});
