/** A TestServer on the kubernetes backend (what the api-kube project sets for every server), with its operator unless `SVC_TEST_OPERATOR: 'off'`. */
import { TestServer } from '../helpers/server.js';

export function kubeServer(env: Record<string, string> = {}): TestServer {
  const before = process.env.SVC_TEST_BACKEND;
  process.env.SVC_TEST_BACKEND = 'kubernetes';
  try {
    return new TestServer(env);
  } finally {
    if (before === undefined) delete process.env.SVC_TEST_BACKEND;
    else process.env.SVC_TEST_BACKEND = before;
  }
}
