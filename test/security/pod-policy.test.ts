/**
 * ATTACK: a DAG author asks for root on a node through the `kubernetes` block (privileged, runAsUser 0,
 * added capabilities, an unconfined seccomp profile, host namespaces, a toleration of every taint,
 * svc's own ServiceAccount, svc's Secrets and claim, the Helm release Secret). Every such block is
 * refused, naming the field, by `svc validate`, POST /dags/validate, POST /dags and PUT spec, on the
 * embedded server as the kubernetes one (test/security/kube/ attacks the operator and admission).
 * What the policy allows stays valid; an install widens it only by listing what it allows.
 */
import { Sandbox } from '../helpers/cli.js';
import { TestServer } from '../helpers/server.js';

/** One attack: the block (a step's), and what the refusal must name. */
const ATTACKS: Array<[string, string, string]> = [
  ['privileged', '{securityContext: {privileged: true}}', 'kubernetes.securityContext.privileged'],
  ['runAsUser 0', '{securityContext: {runAsUser: 0}}', 'kubernetes.securityContext.runAsUser'],
  ['Pod runAsUser 0', '{podSecurityContext: {runAsUser: 0}}', 'kubernetes.podSecurityContext.runAsUser'],
  ['capabilities add', '{securityContext: {capabilities: {add: [SYS_ADMIN]}}}', 'kubernetes.securityContext.capabilities.add'],
  ['seccomp Unconfined', '{securityContext: {seccompProfile: {type: Unconfined}}}', 'kubernetes.securityContext.seccompProfile'],
  ['privilege escalation', '{securityContext: {allowPrivilegeEscalation: true}}', 'kubernetes.securityContext.allowPrivilegeEscalation'],
  ['hostPID', '{hostPID: true}', 'hostPID'],
  ['hostNetwork', '{hostNetwork: true}', 'hostNetwork'],
  ['a hostPath volume', '{volumes: [{name: root, hostPath: {path: /}}]}', 'hostPath'],
  ['a toleration of every taint', '{tolerations: [{operator: Exists}]}', 'kubernetes.tolerations[0].key'],
  ['the control plane\'s taint', '{tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists}]}', 'kubernetes.tolerations[0].key'],
  ['svc\'s ServiceAccount', '{serviceAccountName: svc-operator}', 'kubernetes.serviceAccountName'],
  ['a foreign ServiceAccount', '{serviceAccountName: kube-admin}', 'kubernetes.serviceAccountName'],
  ['a PriorityClass', '{priorityClassName: system-node-critical}', 'kubernetes.priorityClassName'],
  ['svc\'s auth Secret', '{volumes: [{name: k, secret: {secretName: svc-auth}}]}', 'kubernetes.volumes[0].secret.secretName'],
  ['the Helm release Secret', '{volumes: [{name: k, secret: {secretName: sh.helm.release.v1.svc.v1}}]}', 'kubernetes.volumes[0].secret.secretName'],
  ['a service-account token Secret', '{volumes: [{name: k, secret: {secretName: default-token-x7k2p}}]}', 'kubernetes.volumes[0].secret.secretName'],
  ['the data claim', '{volumes: [{name: d, persistentVolumeClaim: {claimName: svc-data}}]}', 'kubernetes.volumes[0].persistentVolumeClaim.claimName'],
];

const dagWith = (block: string): string => ['steps:', '  - name: pwn', '    command: "true"', `    kubernetes: ${block}`].join('\n');
const ALLOWED = dagWith('{resources: {limits: {cpu: "1"}}, tolerations: [{key: dedicated, operator: Exists}], securityContext: {runAsUser: 1000, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}, volumes: [{name: c, configMap: {name: cfg}}], volumeMounts: [{name: c, mountPath: /cfg}]}');

describe('svc validate refuses a step Pod that would own its node', () => {
  const sb = new Sandbox();

  test.each(ATTACKS)('%s', async (_, block, field) => {
    const r = await sb.run(['validate', sb.dag('pwn', dagWith(block))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(field);
  });

  test('a root container user is refused; what the policy allows is valid', async () => {
    const root = await sb.run(['validate', sb.dag('root', 'container: {image: alpine, user: "0"}\nsteps: ["true"]\n')]);
    expect([root.code, root.stderr]).toEqual([1, expect.stringContaining('container.user: 0 is root')]);
    const ok = await sb.run(['validate', sb.dag('ok', ALLOWED)]);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
  });

  test('an install widens the policy only by listing what it allows (SVC_POD_POLICY)', async () => {
    const wide = new Sandbox({ SVC_POD_POLICY: JSON.stringify({ serviceAccounts: ['batch'], secrets: ['team-*'] }) });
    const ok = await wide.run(['validate', wide.dag('ok', dagWith('{serviceAccountName: batch, volumes: [{name: k, secret: {secretName: team-keys}}]}'))]);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    const still = await wide.run(['validate', wide.dag('no', dagWith('{serviceAccountName: svc-operator, securityContext: {privileged: true}}'))]);
    expect(still.code).toBe(1);
    expect(still.stderr).toContain('kubernetes.serviceAccountName: svc-operator is not a ServiceAccount steps may run as (allowed: batch)');
    expect(still.stderr).toContain('kubernetes.securityContext.privileged');
    const bare = await new Sandbox({ SVC_POD_POLICY: '{"secrets": ["*"]}' }).run(['validate', wide.dag('x', ALLOWED)]);
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain('SVC_POD_POLICY: secrets: "*" is a bare "*"');
  });
});

describe('the REST API refuses them on the embedded server', () => {
  const srv = new TestServer();
  beforeAll(() => srv.start(), 30_000);
  afterAll(() => srv.stop());

  test.each(ATTACKS)('%s: POST /dags/validate, POST /dags and PUT spec', async (_, block, field) => {
    const v = await srv.post('/dags/validate', { spec: dagWith(block) });
    expect([v.status, v.body.valid]).toEqual([200, false]);
    expect(v.body.errors.join('\n')).toContain(field);
    const create = await srv.post('/dags', { name: 'pwn', spec: dagWith(block) });
    expect([create.status, create.body.code, create.body.message]).toEqual([400, 'bad_request', expect.stringContaining(field)]);
    const put = await srv.req('PUT', '/dags/plain/spec', { spec: dagWith(block) });
    // SPEC: PUT spec answers its problems with 200 and saves nothing.
    expect(put.status).toBe(200);
    expect(put.body.errors.join('\n')).toContain(field);
    expect((await srv.get('/dags/plain/spec')).body.spec).toBe('steps: ["true"]\n');
  });

  test('what the policy allows is accepted', async () => {
    const v = await srv.post('/dags/validate', { spec: ALLOWED });
    expect([v.status, v.body.valid, v.body.errors]).toEqual([200, true, []]);
    expect((await srv.req('PUT', '/dags/plain/spec', { spec: ALLOWED })).status).toBe(200);
    expect((await srv.req('PUT', '/dags/plain/spec', { spec: 'steps: ["true"]\n' })).status).toBe(200);
  });

  beforeAll(async () => {
    expect((await srv.post('/dags', { name: 'plain', spec: 'steps: ["true"]\n' })).status).toBe(201);
  });
});
