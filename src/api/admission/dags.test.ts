/** The Dag admission review: allowed, or refused with the validator's messages. */
import { reviewDag, type AdmissionDeps } from './dags.js';

const deps: AdmissionDeps = {
  validate: (text, name) => (text.includes('bad') ? { valid: false, errors: [`${name}: steps[0]: bad thing`, 'second problem'] } : { valid: true, errors: [] }),
  textOf: (spec) => JSON.stringify(spec),
};

describe('reviewDag', () => {
  test('a valid Dag is allowed; the uid is echoed', () => {
    expect(reviewDag({ uid: 'u1', operation: 'CREATE', object: { metadata: { name: 'a' }, spec: { steps: [] } } }, deps)).toEqual({ uid: 'u1', allowed: true });
  });

  test('an invalid Dag is refused (422 Invalid) with every message, naming the fileName from the annotation', () => {
    const r = reviewDag({ uid: 'u2', operation: 'UPDATE', object: { metadata: { name: 'my-dag-x', annotations: { 'svc.io/file-name': 'My_Dag' } }, spec: { x: 'bad' } } }, deps);
    expect(r).toEqual({ uid: 'u2', allowed: false, status: { code: 422, reason: 'Invalid', message: 'DAG My_Dag is invalid: My_Dag: steps[0]: bad thing; second problem' } });
  });

  test('deletes and connects are allowed without looking; a validator that throws refuses with its message', () => {
    expect(reviewDag({ uid: 'u3', operation: 'DELETE', object: null }, deps).allowed).toBe(true);
    const throwing = { ...deps, textOf: () => { throw new Error('cannot render'); } };
    expect(reviewDag({ uid: 'u4', operation: 'CREATE', object: { metadata: { name: 'a' }, spec: {} } }, throwing).status?.message).toMatch(/cannot render/);
  });
});
