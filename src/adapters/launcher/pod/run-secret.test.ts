import { referenceParts } from '../../../core/secret-parts.js';
import { refsOfSecret, runSecretBody, runSecretPlan } from './run-secret.js';

const SECRET = 'pa"ss\nword';
const container = { image: 'alpine', env: ['PLAIN=hello', `TOKEN=Bearer ${SECRET}`], keepContainer: false } as never;

describe('runSecretPlan', () => {
  test('the Pod\'s env holds no value: container items carrying one and every reference come from the Secret', () => {
    const plan = runSecretPlan('run-pod', container, [SECRET, '']);
    expect(JSON.stringify(plan.env)).not.toContain('pa\\"ss');
    expect(plan.env[0]).toEqual({ name: 'PLAIN', value: 'hello' });
    expect(plan.env[1]).toEqual({ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'run-pod', key: 'env1' } } });
    const refs = plan.env.slice(2);
    expect(refs.length).toBeGreaterThan(1);
    expect(refs.every((e) => e.name.startsWith('SVC_SECRET_REF_') && e.valueFrom?.secretKeyRef?.name === 'run-pod')).toBe(true);
  });

  test('a run without secrets needs no Secret', () => {
    expect(runSecretPlan('run-pod', container, [])).toEqual(expect.objectContaining({ data: {} }));
  });

  test('after a restart the Secret gives back the same references', () => {
    const plan = runSecretPlan('run-pod', container, [SECRET, 'other']);
    const secret = runSecretBody('run-pod', 'ns', { name: 'dr', uid: 'u' }, plan.data);
    expect(secret.metadata?.ownerReferences?.[0]).toEqual(expect.objectContaining({ kind: 'DagRun', name: 'dr', uid: 'u' }));
    const back = refsOfSecret(JSON.parse(JSON.stringify(secret)));
    expect([...back].sort()).toEqual([...plan.refs].sort());
    const text = `curl -H 'x: ${SECRET}' ${JSON.stringify({ v: 'other' })}`;
    expect(referenceParts(text, back, [SECRET, 'other'])).toEqual(referenceParts(text, plan.refs, [SECRET, 'other']));
  });
});
