/** The pod policy of steps: an allowlist, widened only by what an install lists. */
import { blockPolicyProblems, containerUserProblem, dagPolicyProblems, DEFAULT_POD_POLICY, listed, type PodPolicy } from './pod-policy.js';
import type { KubernetesBlock } from './types.js';
import { loadDagText } from './load.js';

const p = DEFAULT_POD_POLICY;
const wide: PodPolicy = { ...p, serviceAccounts: ['batch'], priorityClasses: ['low'], secrets: ['team-*', 'pull'], claims: ['datasets'], capabilities: ['NET_ADMIN'], tolerationKeys: ['node-role.kubernetes.io/control-plane'], root: true };

test.each<[string, KubernetesBlock]>([
  ['resources, placement and metadata', { resources: { limits: { cpu: '1' } }, nodeSelector: { a: 'b' }, tolerations: [{ key: 'dedicated', operator: 'Exists' }], labels: { team: 'a' }, annotations: { x: 'y' } }],
  ['node and pod affinity', { affinity: { nodeAffinity: {}, podAntiAffinity: {} } }],
  ['ConfigMap and scratch volumes', { volumes: [{ name: 'c', configMap: { name: 'cfg' } }, { name: 'e', emptyDir: {} }], volumeMounts: [{ name: 'c', mountPath: '/c' }] }],
  ['a non-root user, dropped capabilities, read-only root, RuntimeDefault', { securityContext: { runAsUser: 1000, runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, privileged: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } } }],
  ['Pod groups and a Localhost profile', { podSecurityContext: { runAsUser: 1000, fsGroup: 2000, supplementalGroups: [3000], seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } }],
])('the default policy allows %s', (_, k) => {
  expect(blockPolicyProblems(k, p)).toEqual([]);
});

test.each<[string, KubernetesBlock, string]>([
  ['privileged', { securityContext: { privileged: true } }, 'kubernetes.securityContext.privileged: a step may not run privileged'],
  ['runAsUser 0', { securityContext: { runAsUser: 0 } }, 'kubernetes.securityContext.runAsUser: 0: must be a user id above 0'],
  ['Pod runAsUser 0', { podSecurityContext: { runAsUser: 0 } }, 'kubernetes.podSecurityContext.runAsUser: 0'],
  ['runAsNonRoot false', { securityContext: { runAsNonRoot: false } }, 'kubernetes.securityContext.runAsNonRoot: must be true'],
  ['privilege escalation', { securityContext: { allowPrivilegeEscalation: true } }, 'kubernetes.securityContext.allowPrivilegeEscalation: must be false'],
  ['an added capability', { securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }, 'kubernetes.securityContext.capabilities.add: SYS_ADMIN: steps may add no capability'],
  ['seccomp Unconfined', { securityContext: { seccompProfile: { type: 'Unconfined' } } }, 'kubernetes.securityContext.seccompProfile: type "Unconfined" is not allowed'],
  ['an SELinux type', { securityContext: { seLinuxOptions: { type: 'spc_t' } } }, 'kubernetes.securityContext.seLinuxOptions: may not be set by a step'],
  ['procMount', { securityContext: { procMount: 'Unmasked' } }, 'kubernetes.securityContext.procMount: may not be set'],
  ['sysctls', { podSecurityContext: { sysctls: [{ name: 'kernel.x', value: '1' }] } }, 'kubernetes.podSecurityContext.sysctls: may not be set'],
  ['a toleration of every taint', { tolerations: [{ operator: 'Exists' }] }, 'kubernetes.tolerations[0].key: is empty: a toleration of every taint is not allowed'],
  ['the control plane taint', { tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }] }, 'kubernetes.tolerations[0].key: node-role.kubernetes.io/control-plane is a taint of Kubernetes\' own'],
  ['a ServiceAccount', { serviceAccountName: 'svc-operator' }, 'kubernetes.serviceAccountName: svc-operator is not a ServiceAccount steps may run as (the install allows none'],
  ['a PriorityClass', { priorityClassName: 'system-node-critical' }, 'kubernetes.priorityClassName: system-node-critical is not a PriorityClass'],
  ['a Secret volume', { volumes: [{ name: 's', secret: { secretName: 'svc-auth' } }] }, 'kubernetes.volumes[0].secret.secretName: the Secret svc-auth is not one steps may use'],
  ['a claim', { volumes: [{ name: 'e', emptyDir: {} }, { name: 'd', persistentVolumeClaim: { claimName: 'svc-data' } }] }, 'kubernetes.volumes[1].persistentVolumeClaim.claimName: the claim svc-data is not one steps may mount'],
  ['a pull Secret', { imagePullSecrets: ['svc-s3'] }, 'kubernetes.imagePullSecrets: the Secret svc-s3 is not one steps may use'],
  ['an unknown affinity field', { affinity: { hostNetwork: true } }, 'kubernetes.affinity.hostNetwork: is not an affinity field'],
])('the default policy refuses %s, naming the field', (_, k, message) => {
  expect(blockPolicyProblems(k, p).join('\n')).toContain(message);
});

test('an install widens the policy by listing what it allows, and nothing else', () => {
  const k: KubernetesBlock = {
    serviceAccountName: 'batch', priorityClassName: 'low', imagePullSecrets: ['pull'],
    volumes: [{ name: 's', secret: { secretName: 'team-keys' } }, { name: 'd', persistentVolumeClaim: { claimName: 'datasets' } }],
    tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }],
    securityContext: { runAsUser: 0, capabilities: { add: ['NET_ADMIN'] } },
  };
  expect(blockPolicyProblems(k, wide)).toEqual([]);
  expect(blockPolicyProblems({ serviceAccountName: 'svc-operator', volumes: [{ name: 's', secret: { secretName: 'teamx' } }] }, wide)).toHaveLength(2);
  // What no policy allows.
  const never = blockPolicyProblems({ securityContext: { privileged: true, allowPrivilegeEscalation: true, seccompProfile: { type: 'Unconfined' } }, tolerations: [{ operator: 'Exists' }] }, wide);
  expect(never).toHaveLength(4);
  expect(blockPolicyProblems({ volumes: [{ name: 'h', secret: { secretName: 'sh.helm.release.v1.svc.v1' } }] }, { ...wide, secrets: ['sh.*'] })[0]).toMatch(/Helm release record/);
});

test('prefixes match names that start with them; a bare * matches nothing', () => {
  expect(listed(['team-*'], 'team-a')).toBe(true);
  expect(listed(['team-*'], 'svc-auth')).toBe(false);
  expect(listed(['*'], 'svc-auth')).toBe(false);
});

test('container.user: root is refused unless the install allows it', () => {
  expect(containerUserProblem({ user: '0' } as never, p)).toMatch(/^container.user: 0 is root/);
  expect(containerUserProblem({ user: 'root:root' } as never, p)).toMatch(/is root/);
  expect(containerUserProblem({ user: '1000' } as never, p)).toBeUndefined();
  expect(containerUserProblem({ user: '0' } as never, wide)).toBeUndefined();
});

test('a DAG: its block once, each step for what it sets itself, handlers too', () => {
  const { dag, errors } = loadDagText([
    'kubernetes: {securityContext: {privileged: true}}',
    'container: {image: alpine, user: "0"}',
    'handlerOn: {exit: {command: "true", kubernetes: {serviceAccountName: x}}}',
    'steps:',
    '  - name: a',
    '    command: "true"',
    '  - name: b',
    '    command: "true"',
    '    kubernetes: {tolerations: [{operator: Exists}]}',
  ].join('\n'), { fileName: 'd' });
  expect(errors).toEqual([]);
  expect(dagPolicyProblems(dag!, p)).toEqual([
    'kubernetes.securityContext.privileged: a step may not run privileged',
    expect.stringMatching(/^container.user: 0 is root/),
    'step b: kubernetes.tolerations[0].key: is empty: a toleration of every taint is not allowed, name the taint\'s key',
    expect.stringMatching(/^handlerOn.exit: kubernetes.serviceAccountName: x is not a ServiceAccount/),
  ]);
});
