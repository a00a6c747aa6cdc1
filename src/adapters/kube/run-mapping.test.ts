/** DagRun objects stay within etcd's object cap: a spec over its budget is a clear 400, before any call. */
import { makeRun } from '../store/conformance.js';
import { MAX_SPEC_BYTES, newObject } from './run-mapping.js';

describe('newObject', () => {
  test('names the object from the identity and keeps the spec', () => {
    const run = makeRun({ dagName: 'etl', dagRunId: 'r1' });
    const o = newObject(run);
    expect(o.metadata.name).toMatch(/^etl-r1-[0-9a-z]{13}$/);
    expect(o.spec).toEqual(run.spec);
  });

  test('a spec over the budget (a huge webhook payload) is refused with the size and the limit', () => {
    const run = makeRun({ dagName: 'hooked', dagRunId: 'big' });
    run.spec.extraEnv = { WEBHOOK_PAYLOAD: 'x'.repeat(MAX_SPEC_BYTES) };
    expect(() => newObject(run)).toThrow(expect.objectContaining({ code: 'bad_request', message: expect.stringMatching(/over the 393216-byte limit of a DagRun spec/) }));
  });
});
