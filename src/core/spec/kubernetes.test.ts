import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mergeKubernetes } from './kubernetes.js';
import { loadDagText } from './load.js';
import type { KubernetesBlock } from './types.js';

const here = dirname(fileURLToPath(import.meta.url));

describe('mergeKubernetes: the step block over the DAG block, field by field', () => {
  const dag: KubernetesBlock = {
    resources: { requests: { cpu: '1' }, limits: { memory: '1Gi' } },
    serviceAccountName: 'dag-sa',
    nodeSelector: { disk: 'ssd', zone: 'a' },
    labels: { team: 'data', tier: '1' },
    annotations: { 'example.com/a': 'x' },
    tolerations: [{ key: 'dedicated', operator: 'Exists' }],
    volumes: [{ name: 'cache', emptyDir: {} }],
    volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
    imagePullSecrets: ['dag-cred'],
    affinity: { nodeAffinity: { x: 1 } },
    priorityClassName: 'low',
  };

  test.each<[string, KubernetesBlock | undefined, KubernetesBlock | undefined, KubernetesBlock | undefined]>([
    ['neither', undefined, undefined, undefined],
    ['the DAG only', dag, undefined, dag],
    ['the step only', undefined, { priorityClassName: 'high' }, { priorityClassName: 'high' }],
    ['an empty step block keeps the DAG', dag, {}, dag],
    ['scalars replaced', { serviceAccountName: 'a', priorityClassName: 'p' }, { serviceAccountName: 'b' }, { serviceAccountName: 'b', priorityClassName: 'p' }],
    ['maps merged key by key, the step winning', { labels: { a: '1', b: '2' }, nodeSelector: { z: 'a' } }, { labels: { b: '3', c: '4' }, nodeSelector: { z: 'b' } }, { labels: { a: '1', b: '3', c: '4' }, nodeSelector: { z: 'b' } }],
    ['annotations merged too', { annotations: { a: '1' } }, { annotations: { b: '2' } }, { annotations: { a: '1', b: '2' } }],
    ['lists replaced', { tolerations: [{ key: 'a', operator: 'Exists' }], imagePullSecrets: ['x'] }, { tolerations: [{ key: 'b', operator: 'Exists' }] }, { tolerations: [{ key: 'b', operator: 'Exists' }], imagePullSecrets: ['x'] }],
    ['resources replaced whole', { resources: { requests: { cpu: '1' }, limits: { memory: '1Gi' } } }, { resources: { limits: { memory: '2Gi' } } }, { resources: { limits: { memory: '2Gi' } } }],
    ['volumes and mounts replaced independently', { volumes: [{ name: 'a', emptyDir: {} }], volumeMounts: [{ name: 'a', mountPath: '/a' }] }, { volumeMounts: [] }, { volumes: [{ name: 'a', emptyDir: {} }], volumeMounts: [] }],
  ])('%s', (_what, d, s, expected) => {
    expect(mergeKubernetes(d, s)).toEqual(expected);
  });

  test('neither input is modified', () => {
    const before = JSON.stringify(dag);
    const step: KubernetesBlock = { labels: { tier: '2' } };
    const merged = mergeKubernetes(dag, step)!;
    merged.labels!.extra = 'y';
    expect(JSON.stringify(dag)).toBe(before);
    expect(step).toEqual({ labels: { tier: '2' } });
  });
});

describe('parsing the kubernetes block', () => {
  const r = loadDagText(readFileSync(join(here, 'testdata/valid/kubernetes.yaml'), 'utf8'), { fileName: 'kubernetes' });
  const step = (name: string) => r.dag!.steps.find((s) => s.name === name)!;

  test('the DAG block: quantities and map scalars as text, lists and passed-through objects as written', () => {
    expect(r.errors).toEqual([]);
    expect(r.dag!.kubernetes).toEqual({
      resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '1', memory: '1.5Gi', 'nvidia.com/gpu': '1' } },
      serviceAccountName: 'runner',
      nodeSelector: { disk: 'ssd', zone: 'eu-1' },
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' },
        { key: 'spot', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
      ],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'arch', operator: 'In', values: ['amd64'] }] }] } } },
      labels: { team: 'data', tier: '2' },
      annotations: { 'example.com/owner': 'data team' },
      imagePullSecrets: ['regcred'],
      volumes: [
        { name: 'cache', persistentVolumeClaim: { claimName: 'cache', readOnly: true } },
        { name: 'cfg', configMap: { name: 'app-config', items: [{ key: 'app.yaml', path: 'app.yaml' }] } },
        { name: 'creds', secret: { secretName: 'creds' } },
        { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '256Mi' } },
      ],
      volumeMounts: [{ name: 'cache', mountPath: '/cache', readOnly: true }, { name: 'cfg', mountPath: '/etc/app' }],
      securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false },
      podSecurityContext: { fsGroup: 1000 },
      priorityClassName: 'batch-low',
    });
  });

  test('step blocks hold only what the step wrote (merged at run time); handlers have theirs', () => {
    expect(step('inherit').kubernetes).toBeUndefined();
    expect(step('own').kubernetes).toEqual({
      resources: { limits: { memory: '2Gi' } }, labels: { tier: '3', step: 'own' }, nodeSelector: { zone: 'eu-2' },
      volumeMounts: [{ name: 'scratch', mountPath: '/scratch', subPath: 'own' }],
    });
    expect(step('own-volumes').kubernetes).toEqual({ volumes: [{ name: 'work', emptyDir: {} }], volumeMounts: [{ name: 'work', mountPath: '/work' }] });
    expect(r.dag!.handlerOn.exit!.kubernetes).toEqual({ priorityClassName: 'high' });
  });

  test.each([
    ['a step mounting a DAG volume', 'kubernetes: {volumes: [{name: v, emptyDir: {}}]}\nsteps:\n  - {command: ls, kubernetes: {volumeMounts: [{name: v, mountPath: /v}]}}', []],
    ['a handler mounting an undeclared volume', 'steps: [ls]\nhandlerOn:\n  exit: {command: ls, kubernetes: {volumeMounts: [{name: v, mountPath: /v}]}}',
      ['handlerOn.exit.kubernetes.volumeMounts[0].name: "v" is not a declared volume (no volumes are declared)']],
    ['a DAG with a bad mount reports it once, not per step', 'kubernetes: {volumeMounts: [{name: v, mountPath: /v}]}\nsteps: [ls, ls]',
      ['kubernetes.volumeMounts[0].name: "v" is not a declared volume (no volumes are declared)']],
    ['node labels may be any key, svc.io ones too (a nodeSelector sets nothing on the Pod)', 'kubernetes: {nodeSelector: {svc.io/pool: a}}\nsteps: [ls]', []],
    ['a prefix of svc.io is reserved', 'kubernetes: {labels: {team.svc.io/x: a, notsvc.io/y: b}}\nsteps: [ls]',
      ['kubernetes.labels: "team.svc.io/x" is svc\'s own: svc sets svc.io/* and app.kubernetes.io/managed-by on its Pods, choose another key']],
  ])('%s', (_what, text, errors) => {
    expect(loadDagText(text, { fileName: 'k' }).errors).toEqual(errors);
  });
});
