/** A step's kubernetes block may name the namespace's objects, but not svc's own. */
import { podAccessProblem, type ProtectedObjects } from './pod-access.js';
import type { KubernetesBlock } from '../../../core/spec/types.js';

const own: ProtectedObjects = { secrets: ['svc-auth', 'svc-s3'], serviceAccounts: ['svc-operator', 'svc-api'], claims: ['svc-data'] };
const execSecrets = new Set(['dag-build-1a2b3c']);
const problem = (k: KubernetesBlock) => podAccessProblem(k, own, (n) => execSecrets.has(n));

test.each<[string, KubernetesBlock]>([
  ['no block', {}],
  ['a ServiceAccount of the team\'s', { serviceAccountName: 'batch-runner' }],
  ['the team\'s Secret, ConfigMap, claim and scratch', {
    volumes: [{ name: 's', secret: { secretName: 'train-token' } }, { name: 'c', configMap: { name: 'svc-auth' } }, { name: 'd', persistentVolumeClaim: { claimName: 'datasets' } }, { name: 'e', emptyDir: {} }],
  }],
])('allowed: %s', (_, k) => {
  expect(problem(k)).toBeUndefined();
});

test.each<[string, KubernetesBlock, RegExp]>([
  ['the operator\'s ServiceAccount', { serviceAccountName: 'svc-operator' }, /serviceAccountName: svc-operator is svc's own ServiceAccount/],
  ['the API\'s ServiceAccount', { serviceAccountName: 'svc-api' }, /svc-api is svc's own/],
  ['the bucket\'s credentials', { volumes: [{ name: 'ok', emptyDir: {} }, { name: 'keys', secret: { secretName: 'svc-s3' } }] }, /volumes: keys mounts the Secret svc-s3, which is svc's own/],
  ['another execution\'s Secret', { volumes: [{ name: 'x', secret: { secretName: 'dag-build-1a2b3c' } }] }, /the Secret dag-build-1a2b3c, which is svc's own/],
  ['the data claim', { volumes: [{ name: 'all', persistentVolumeClaim: { claimName: 'svc-data', readOnly: true } }] }, /volumes: all mounts the claim svc-data, which holds every run's logs/],
])('refused: %s', (_, k, message) => {
  expect(problem(k)).toMatch(message);
});
