import { makeRun } from '../store/conformance.js';
import { DEFAULT_MAX_STATUS_BYTES, storedStatus, toRun, statusObject, newObject } from './run-mapping.js';
import { compactValues, expandValues } from './status-values.js';

const big = 'v'.repeat(400 * 1024);

function runWithOutputs() {
  const run = makeRun({ dagRunId: 'r1' });
  run.status.run.nodes = [
    { ...run.status.run.nodes[0]!, name: 'a', output: big },
    { ...run.status.run.nodes[0]!, name: 'b', output: 'small' },
  ];
  run.status.run.variables = { BIG: big, SMALL: 'small', INPUT: 'typed by an approver' };
  run.status.run.outputs = { big, small: 'small' };
  return run;
}

describe('captured values kept once in a DagRun status', () => {
  test('a value equal to a node output is a reference; reading restores it exactly', () => {
    const run = runWithOutputs();
    const stored = compactValues(run.status.run);
    expect(stored.variables).toEqual({ SMALL: 'small', INPUT: 'typed by an approver' });
    expect(stored.outputs).toEqual({ small: 'small' });
    expect(expandValues(stored)).toEqual(run.status.run);
  });

  test('a 400 KiB output fits the 1 MiB budget once, where three copies would not', () => {
    const run = runWithOutputs();
    const key = { dagName: run.spec.dagName, dagRunId: run.spec.dagRunId };
    const s = storedStatus(key, run.status, 0, DEFAULT_MAX_STATUS_BYTES);
    expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThan(450 * 1024);
    expect(Buffer.byteLength(JSON.stringify(run.status))).toBeGreaterThan(DEFAULT_MAX_STATUS_BYTES);
    const o = { ...statusObject(newObject(run).metadata.name!, '1', s), spec: run.spec, metadata: { ...newObject(run).metadata, resourceVersion: '1' } };
    expect(toRun(o).status).toEqual(run.status);
  });

  test('no node output worth sharing: the state is stored as it is', () => {
    const run = makeRun({ dagRunId: 'r2' });
    run.status.run.variables = { A: 'x' };
    expect(compactValues(run.status.run)).toBe(run.status.run);
  });
});
