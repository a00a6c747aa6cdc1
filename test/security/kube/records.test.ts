/**
 * On the Kubernetes backend the users are a JSON list in the svc-users Secret: an entry of the wrong
 * shape put there by hand (kubectl) survives the next change made through REST.
 */
import { ADMIN_PASSWORD, SECRET as TOKEN_SECRET, bearer, login } from '../../api/auth/harness.js';
import { kubectl } from '../../testbed/helpers.js';
import { describeCluster } from '../../kube/env.js';
import { kubeServer } from '../../kube/servers.js';

const usersIn = async (ns: string): Promise<unknown[]> => {
  const secret = JSON.parse((await kubectl(['get', 'secret', 'svc-users', '-n', ns, '-o', 'json'])).stdout) as { data: Record<string, string> };
  return JSON.parse(Buffer.from(secret.data['records.json'] ?? '', 'base64').toString()) as unknown[];
};

describeCluster('a hand-edited users Secret', () => {
  const srv = kubeServer({ SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: TOKEN_SECRET, SVC_AUTH_ADMIN_PASSWORD: ADMIN_PASSWORD, SVC_TEST_OPERATOR: 'off' });
  beforeAll(async () => srv.start());
  afterAll(async () => srv.stop());

  test('keeps an entry of the wrong shape after a user is created', async () => {
    const admin = await login(srv, 'admin', ADMIN_PASSWORD);
    const ns = srv.server.namespace!;
    const malformed = { id: 'legacy-1', username: 'legacy', role: 'viewer' };
    const json = JSON.stringify([...(await usersIn(ns)), malformed]);
    await kubectl(['patch', 'secret', 'svc-users', '-n', ns, '--type', 'merge', '-p', JSON.stringify({ data: { 'records.json': Buffer.from(json).toString('base64') } })]);
    const r = await srv.req('POST', '/users', { username: 'alice', password: 'alice-password-1', role: 'viewer' }, bearer(admin));
    expect(r.status).toBe(201);
    const users = await usersIn(ns);
    expect(users).toContainEqual(malformed);
    expect(users.map((u) => (u as { username: string }).username)).toEqual(expect.arrayContaining(['admin', 'alice', 'legacy']));
  });
});
