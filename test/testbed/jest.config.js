/**
 * Jest project of the Kubernetes test bed's own tests (included by the root jest.config.js).
 * globalSetup starts one test bed per run (or uses the cluster in SVC_TEST_KUBECONFIG); see docs/testbed.md.
 */
import { base } from '../../jest.config.js';

export default {
  ...base,
  displayName: 'testbed',
  rootDir: '.',
  roots: ['<rootDir>', '<rootDir>/../kube', '<rootDir>/../security/kube'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/.build/'],
  modulePathIgnorePatterns: ['<rootDir>/.build/'],
  globalSetup: '<rootDir>/global-setup.js',
  globalTeardown: '<rootDir>/global-teardown.js',
  testTimeout: 120000,
};
