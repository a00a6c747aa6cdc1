/**
 * The REST API suite on the kubernetes backend (one suite, two backends): these test files run a second
 * time with SVC_TEST_BACKEND=kubernetes, each server in a fresh namespace of the shared test bed, with an
 * operator running its runs' steps as Pods. Not here: what only the embedded backend has (the data
 * directory's health, its exec records at shutdown), and GET /workers, which on kubernetes comes from
 * Nodes (tested on the test bed in test/kube).
 */
import { base } from '../jest.config.js';

export const KUBE_API_TESTS = [
  'api/contract/routes', 'api/contract/dags', 'api/dags/collection', 'api/dags/list',
  'api/auth/users', 'api/auth/api-keys', 'api/auth/brute-force', 'api/system/resources',
  'api/auth/modes', 'api/auth/role-matrix', 'api/auth/audit', 'api/auth/oidc', 'api/auth/secrets', 'api/contract/auth', 'api/dags/dag', 'api/contract/system',
  'api/runs/start', 'api/runs/manage', 'api/runs/list', 'api/runs/results', 'api/runs/restart', 'api/runs/queue', 'api/runs/approval', 'api/runs/robustness',
  'api/runs/scheduler', 'api/runs/subdag-limits', 'api/contract/runs', 'api/dags/runs', 'api/system/metrics', 'api/system/webhooks', 'api/system/remote-node',
  'api/events/events', 'api/system/terminal', 'api/security/params', 'api/security/env-expansion', 'api/security/bounded', 'api/security/browser', 'api/security/remote-node', 'api/security/auth-low', 'api/security/malformed-dags',
];

export default {
  ...base,
  displayName: 'api-kube',
  rootDir: '.',
  roots: ['<rootDir>/api'],
  testMatch: KUBE_API_TESTS.map((t) => `<rootDir>/${t}.test.ts`),
  setupFiles: ['<rootDir>/api-kube.setup.js'],
  setupFilesAfterEnv: ['<rootDir>/api-kube.skip.js'],
  globalSetup: '<rootDir>/testbed/global-setup.js',
  globalTeardown: '<rootDir>/testbed/global-teardown.js',
  testTimeout: 120000,
};
