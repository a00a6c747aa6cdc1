/** The operator's settings from the environment: defaults, and clear errors for bad values. */
import { loadOperatorConfig } from './operator-config.js';

test('defaults', () => {
  expect(loadOperatorConfig({}, '1.2.3')).toEqual({
    stepImage: 'debian:stable-slim', entryImage: 'svc:1.2.3', entryDelivery: 'image-volume', podRetention: 'none',
    stopGraceSeconds: 30, leaseSeconds: 15, podCreateQps: 50, port: 8081, maxActiveRuns: 1000,
  });
});

test('every setting', () => {
  expect(loadOperatorConfig({
    SVC_STEP_IMAGE: 'alpine', SVC_ENTRY_IMAGE: 'reg/svc:9', SVC_ENTRY_DELIVERY: 'init-container', SVC_DATA_CLAIM: 'svc-data',
    SVC_POD_RETENTION: 'failed', SVC_STOP_GRACE_SECONDS: '0', SVC_LEASE_SECONDS: '3', SVC_POD_CREATE_QPS: '5', SVC_OPERATOR_ID: 'op-1', SVC_OPERATOR_PORT: '0', SVC_STEP_SERVICE_ACCOUNT: 'svc-steps', SVC_MAX_ACTIVE_RUNS: '20',
    SVC_SECRET_ENV_FROM: 'svc-step-env', SVC_PROTECTED_SECRETS: 'svc-auth, svc-s3,', SVC_PROTECTED_SERVICE_ACCOUNTS: 'svc-operator',
    SVC_WATCH_NAMESPACES: 'all', SVC_WATCH_NAMESPACE_SELECTOR: 'svc.io/runs=true',
  }, '1')).toEqual({
    stepImage: 'alpine', entryImage: 'reg/svc:9', entryDelivery: 'init-container', dataClaim: 'svc-data', podRetention: 'failed',
    stopGraceSeconds: 0, leaseSeconds: 3, podCreateQps: 5, identity: 'op-1', port: 0, stepServiceAccount: 'svc-steps', maxActiveRuns: 20, secretEnvFrom: 'svc-step-env',
    protectedSecrets: ['svc-auth', 'svc-s3'], protectedServiceAccounts: ['svc-operator'],
    watchNamespaces: 'all', namespaceSelector: 'svc.io/runs=true',
  });
});

test('a list of namespaces to watch', () => {
  expect(loadOperatorConfig({ SVC_WATCH_NAMESPACES: ' team-a, team-b ' }, '1').watchNamespaces).toEqual(['team-a', 'team-b']);
});

test.each([
  [{ SVC_ENTRY_DELIVERY: 'sidecar' }, 'SVC_ENTRY_DELIVERY: "sidecar" must be one of image-volume, init-container'],
  [{ SVC_POD_RETENTION: 'some' }, 'SVC_POD_RETENTION: "some" must be one of none, failed, all'],
  [{ SVC_LEASE_SECONDS: '2' }, 'SVC_LEASE_SECONDS: "2" must be a whole number of seconds, at least 3'],
  [{ SVC_POD_CREATE_QPS: '0.5' }, 'SVC_POD_CREATE_QPS: "0.5" must be a whole number of Pods a second, at least 1'],
  [{ SVC_OPERATOR_PORT: '70000' }, 'SVC_OPERATOR_PORT: "70000" must be a TCP port, 0 to 65535'],
  [{ SVC_MAX_ACTIVE_RUNS: '0' }, 'SVC_MAX_ACTIVE_RUNS: "0" must be a whole number of runs, at least 1'],
  [{ SVC_SECRET_ENV_FROM: 'Step_Env' }, 'SVC_SECRET_ENV_FROM: "Step_Env" is not a Secret name'],
  [{ SVC_PROTECTED_SECRETS: 'svc-s3,S3 Keys' }, 'SVC_PROTECTED_SECRETS: "S3 Keys" is not an object name'],
  [{ SVC_WATCH_NAMESPACES: 'team-a,../etc' }, 'SVC_WATCH_NAMESPACES: "../etc" is not a namespace name'],
  [{ SVC_WATCH_NAMESPACES: 'team-a', SVC_WATCH_NAMESPACE_SELECTOR: 'a=b' }, 'SVC_WATCH_NAMESPACE_SELECTOR narrows SVC_WATCH_NAMESPACES=all'],
  [{ SVC_OPERATOR_PORT: 'http' }, 'SVC_OPERATOR_PORT: "http" must be a whole number of a TCP port, at least 0'],
])('%j is refused', (env, message) => {
  expect(() => loadOperatorConfig(env, '1')).toThrow(message);
});
