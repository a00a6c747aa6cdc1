/**
 * Jest runs the TypeScript sources directly (ts-jest, ESM, transpile only: tsc type-checks in pretest).
 * Projects: `unit` (src/ unit tests and test/ integration tests) and, when present, the Kubernetes
 * test bed's project (test/testbed/jest.config.js: the test bed's own tests and the Kubernetes backend's,
 * test/kube, test/security/kube), which starts one test bed per run.
 */
import { existsSync } from 'node:fs';

export const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
};

const projects = [
  {
    ...base,
    displayName: 'unit',
    rootDir: '.',
    roots: ['<rootDir>/src', '<rootDir>/test'],
    testMatch: ['**/*.test.ts'],
    testPathIgnorePatterns: ['/node_modules/', '/test/testbed/', '/test/kube/', '/test/security/kube/', '/test/operator/'],
  },
];
if (existsSync('test/testbed/jest.config.js')) projects.push('<rootDir>/test/testbed/jest.config.js', '<rootDir>/test/api-kube.jest.config.js');

export default { projects, testTimeout: 60000 };
