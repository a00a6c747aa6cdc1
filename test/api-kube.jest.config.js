/**
 * The REST API suite on the kubernetes backend (one suite, two backends): these test files run a second
 * time with SVC_TEST_BACKEND=kubernetes, each server in a fresh namespace of the shared test bed. Files
 * whose tests need runs to execute join once the operator runs them (Kubernetes part 2).
 */
import { base } from '../jest.config.js';

export const KUBE_API_TESTS = [
  'api/contract/routes', 'api/contract/dags', 'api/dags/collection', 'api/dags/list',
  'api/auth/users', 'api/auth/api-keys', 'api/auth/brute-force', 'api/system/resources',
  'api/auth/modes', 'api/auth/role-matrix', 'api/auth/audit', 'api/auth/oidc', 'api/contract/auth', 'api/dags/dag', 'api/contract/system',
];

export default {
  ...base,
  displayName: 'api-kube',
  rootDir: '.',
  roots: ['<rootDir>/api'],
  testMatch: KUBE_API_TESTS.map((t) => `<rootDir>/${t}.test.ts`),
  setupFiles: ['<rootDir>/api-kube.setup.js'],
  globalSetup: '<rootDir>/testbed/global-setup.js',
  globalTeardown: '<rootDir>/testbed/global-teardown.js',
  testTimeout: 120000,
};
