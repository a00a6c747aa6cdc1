import { visibleVariables } from './visible.js';

const step = (name: string, depends: string[], output?: string) => ({ name, depends, ...(output ? { output: { name: output, key: output, omit: false } } : {}) });
const node = (name: string, finishedAt: string, output?: string, approvalInputs?: Record<string, string>) => ({ name, finishedAt, output, approvalInputs });

describe('visibleVariables', () => {
  const def = { steps: [step('a', [], 'A'), step('b', ['a'], 'B'), step('c', [], 'C'), step('d', ['b', 'c']), step('e', ['a'], 'A')] } as never;
  const state = {
    variables: { A: 'e-value', B: 'b', C: 'c' },
    nodes: [node('a', '2026-01-01T00:00:01Z', 'a-value'), node('b', '2026-01-01T00:00:02Z', 'b'), node('c', '2026-01-01T00:00:01Z', 'c', { APPROVED_BY: 'x' }), node('d', ''), node('e', '2026-01-01T00:00:03Z', 'e-value')],
  } as never;

  test('a step sees its ancestors\' outputs only, through any depth', () => {
    expect(visibleVariables(def, state, 'b')).toEqual({ A: 'a-value' });
    expect(visibleVariables(def, state, 'd')).toEqual({ A: 'a-value', B: 'b', C: 'c', APPROVED_BY: 'x' });
  });

  test('a step on another branch sees nothing of it', () => {
    expect(visibleVariables(def, state, 'c')).toEqual({});
  });

  test('handlers (not a step node) see every variable', () => {
    expect(visibleVariables(def, state, 'onSuccess')).toEqual({ A: 'e-value', B: 'b', C: 'c' });
  });
});
