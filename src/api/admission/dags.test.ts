/** The Dag admission review: allowed, or refused with the validator's messages. */
import { reviewDag, type AdmissionDeps, type DagObject } from './dags.js';

const deps: AdmissionDeps = {
  validate: async (text, name) => (text.includes('bad') ? { valid: false, errors: [`${name}: steps[0]: bad thing`, 'second problem'] } : { valid: true, errors: [] }),
  source: (obj: DagObject) => ({
    fileName: obj.metadata?.annotations?.['svc.io/file-name'] ?? (obj.metadata?.name?.includes('.') ? undefined : obj.metadata?.name),
    text: JSON.stringify(obj.spec ?? {}),
  }),
};

describe('reviewDag', () => {
  test('a valid Dag is allowed; the uid is echoed', async () => {
    expect(await reviewDag({ uid: 'u1', operation: 'CREATE', object: { metadata: { name: 'a' }, spec: { steps: [] } } }, deps)).toEqual({ uid: 'u1', allowed: true });
  });

  test('an invalid Dag is refused (422 Invalid) with every message, naming its fileName', async () => {
    const r = await reviewDag({ uid: 'u2', operation: 'UPDATE', object: { metadata: { name: 'my-dag-x', annotations: { 'svc.io/file-name': 'My_Dag' } }, spec: { x: 'bad' } } }, deps);
    expect(r).toEqual({ uid: 'u2', allowed: false, status: { code: 422, reason: 'Invalid', message: 'DAG My_Dag is invalid: My_Dag: steps[0]: bad thing; second problem' } });
  });

  test('no annotation lets an invalid Dag through: the text the store reads is always validated', async () => {
    const annotations = { 'svc.io/source': 'steps: [ok]', 'svc.io/source-spec-hash': 'anything' };
    const r = await reviewDag({ uid: 'u5', operation: 'UPDATE', object: { metadata: { name: 'draft', annotations }, spec: { x: 'bad' } } }, deps);
    expect(r.allowed).toBe(false);
  });

  test('a Dag whose name can be no fileName is refused, saying how to name it', async () => {
    const r = await reviewDag({ uid: 'u6', operation: 'CREATE', object: { metadata: { name: 'dotted.name' }, spec: {} } }, deps);
    expect(r.allowed).toBe(false);
    expect(r.status?.message).toMatch(/cannot be a DAG fileName.*svc\.io\/file-name/);
  });

  test('deletes are allowed without looking; a reading that throws refuses with its message', async () => {
    expect((await reviewDag({ uid: 'u3', operation: 'DELETE', object: null }, deps)).allowed).toBe(true);
    const throwing = { ...deps, source: () => { throw new Error('cannot render'); } };
    expect((await reviewDag({ uid: 'u4', operation: 'CREATE', object: { metadata: { name: 'a' }, spec: {} } }, throwing)).status?.message).toMatch(/cannot render/);
  });
});
