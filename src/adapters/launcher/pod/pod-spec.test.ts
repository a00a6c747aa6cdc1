/** The step Pod built from an execution request: svc's own parts, and the `kubernetes` block applied over them. */
import type { ExecRequest } from '../../../core/ports/executor.js';
import { mergeKubernetes } from '../../../core/spec/kubernetes.js';
import type { KubernetesBlock } from '../../../core/spec/types.js';
import { stepPod, type PodSettings } from './pod-spec.js';

const HARDENED = { runAsNonRoot: true, allowPrivilegeEscalation: false, privileged: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } };

const settings: PodSettings = {
  namespace: 'ns', stepImage: 'debian:stable-slim', entryImage: 'svc:1', entryDelivery: 'image-volume',
  dataVolume: { claimName: 'svc-data', mountPath: '/var/lib/svc' }, serviceAccountName: 'svc-steps', stopGraceSeconds: 30,
};
const owner = { name: 'run-1', uid: 'uid-1' };
const files = { stdout: '/var/lib/svc/runs/r/attempts/a1/logs/out', stderr: '/var/lib/svc/runs/r/attempts/a1/logs/err', result: '/var/lib/svc/runs/r/attempts/a1/exec/results/build.0.json', root: '/var/lib/svc/runs/r/attempts/a1' };

function request(extra: Partial<ExecRequest> = {}): ExecRequest {
  return {
    exec: { node: 'build', attempt: 0 }, step: { name: 'build', signalOnStop: 'SIGTERM' },
    commands: ['echo hi'], shell: ['/bin/sh'], shellExplicit: false, env: { A: '1' }, workingDir: '/',
    identity: { dagName: 'dag', dagRunId: 'r1', attemptId: 'a1', node: 'build', attempt: 0 },
    merged: false, copies: {}, secrets: [], maxOutputSize: 1024, timeoutMs: 0, capture: false,
    ...extra,
  } as unknown as ExecRequest;
}

const podOf = (extra: Partial<ExecRequest> = {}) => stepPod(request(extra), owner, files, settings).pod;

describe('stepPod without a kubernetes block', () => {
  const pod = podOf({ workerSelector: { pool: 'a' } });
  const spec = pod.spec!;

  test('svc\'s Pod: no token, the operator\'s account, workerSelector as nodeSelector, svc volumes only', () => {
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.serviceAccountName).toBe('svc-steps');
    expect(spec.nodeSelector).toEqual({ pool: 'a' });
    expect(spec.volumes!.map((v) => v.name)).toEqual(['svc-entry', 'svc-data']);
    expect(spec.containers[0]!.volumeMounts!.map((m) => m.name)).toEqual(['svc-entry', 'svc-data']);
    // Of the data volume, only the run attempt's directory, where the operator sees it.
    expect(spec.containers[0]!.volumeMounts![1]).toEqual({ name: 'svc-data', mountPath: '/var/lib/svc/runs/r/attempts/a1', subPath: 'runs/r/attempts/a1' });
    for (const k of ['tolerations', 'affinity', 'imagePullSecrets', 'priorityClassName'] as const) expect(spec[k]).toBeUndefined();
    expect(spec.containers[0]!.resources).toBeUndefined();
    // Hardened whatever the DAG says (pod-hardening.ts): the Pod Security Standard `restricted`.
    expect(spec.securityContext).toEqual({ runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(spec.containers[0]!.securityContext).toEqual(HARDENED);
  });

  test('no nodeSelector at all without workerSelector', () => {
    expect(podOf().spec!.nodeSelector).toBeUndefined();
  });
});

describe('stepPod with a kubernetes block', () => {
  const block: KubernetesBlock = {
    resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { memory: '1Gi' } },
    serviceAccountName: 'trainer',
    nodeSelector: { disk: 'ssd', pool: 'b' },
    tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }, { key: 'spot', operator: 'Equal', value: 'yes', effect: 'NoExecute', tolerationSeconds: 30 }],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'arch', operator: 'In', values: ['amd64'] }] }] } } },
    labels: { team: 'ml' },
    annotations: { 'example.com/owner': 'ml team' },
    imagePullSecrets: ['regcred', 'other'],
    volumes: [
      { name: 'cfg', configMap: { name: 'app', items: [{ key: 'a.yaml', path: 'a.yaml' }] } },
      { name: 'cache', persistentVolumeClaim: { claimName: 'cache', readOnly: true } },
      { name: 'creds', secret: { secretName: 'creds' } },
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
    ],
    volumeMounts: [{ name: 'cfg', mountPath: '/etc/app', readOnly: true }, { name: 'tmp', mountPath: '/tmp', subPath: 'x' }],
    securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
    podSecurityContext: { fsGroup: 1000 },
    priorityClassName: 'batch',
  };
  const pod = podOf({ kubernetes: block, workerSelector: { pool: 'a' } });
  const spec = pod.spec!;
  const container = spec.containers[0]!;

  test('container: resources, securityContext, the block\'s mounts after svc\'s', () => {
    expect(container.resources).toEqual({ requests: { cpu: '250m', memory: '64Mi' }, limits: { memory: '1Gi' } });
    expect(container.securityContext).toEqual(HARDENED);
    expect(container.volumeMounts).toEqual([
      { name: 'svc-entry', mountPath: '/.svc', readOnly: true },
      { name: 'svc-data', mountPath: '/var/lib/svc/runs/r/attempts/a1', subPath: 'runs/r/attempts/a1' },
      { name: 'cfg', mountPath: '/etc/app', readOnly: true },
      { name: 'tmp', mountPath: '/tmp', subPath: 'x' },
    ]);
  });

  test('Pod: volumes after svc\'s, tolerations, affinity, pull secrets, security context, priority', () => {
    expect(spec.volumes).toEqual([
      { name: 'svc-entry', image: { reference: 'svc:1', pullPolicy: 'IfNotPresent' } },
      { name: 'svc-data', persistentVolumeClaim: { claimName: 'svc-data' } },
      ...block.volumes!,
    ]);
    expect(spec.tolerations).toEqual(block.tolerations);
    expect(spec.affinity).toEqual(block.affinity);
    expect(spec.imagePullSecrets).toEqual([{ name: 'regcred' }, { name: 'other' }]);
    // No user named: the default non-root one, with the block's group.
    expect(spec.securityContext).toEqual({ runAsUser: 65532, runAsGroup: 65532, fsGroup: 1000, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(spec.priorityClassName).toBe('batch');
  });

  test('nodeSelector: the block\'s merged under workerSelector (workerSelector wins on a shared key)', () => {
    expect(spec.nodeSelector).toEqual({ disk: 'ssd', pool: 'a' });
  });

  test('the block\'s ServiceAccount wins over the operator\'s, and its token is left to the ServiceAccount', () => {
    expect(spec.serviceAccountName).toBe('trainer');
    expect(spec.automountServiceAccountToken).toBeUndefined();
    const other = podOf({ kubernetes: { priorityClassName: 'x' } }).spec!;
    expect(other.serviceAccountName).toBe('svc-steps');
    expect(other.automountServiceAccountToken).toBe(false);
  });

  test('labels and annotations added to svc\'s; svc\'s own stay', () => {
    expect(pod.metadata!.labels).toMatchObject({ team: 'ml', 'svc.io/component': 'step', 'svc.io/step': 'build', 'app.kubernetes.io/managed-by': 'svc-operator' });
    expect(pod.metadata!.annotations).toMatchObject({ 'example.com/owner': 'ml team', 'kubectl.kubernetes.io/default-container': 'step' });
    expect(pod.metadata!.annotations!['svc.io/exec-identity']).toContain('"dagRunId":"r1"');
  });

  test('svc\'s labels and annotations cannot be overridden (validation refuses the keys; the Pod ignores them anyway)', () => {
    const hostile = podOf({
      kubernetes: {
        labels: { 'svc.io/component': 'mine', 'svc.io/run': 'other', 'app.kubernetes.io/managed-by': 'me', 'svc.io/attempt': '9', keep: 'yes' },
        annotations: { 'svc.io/exec-identity': '{}' },
      },
    });
    expect(hostile.metadata!.labels).toMatchObject({
      'svc.io/component': 'step', 'svc.io/run': 'run-1', 'app.kubernetes.io/managed-by': 'svc-operator', 'svc.io/attempt': '0', keep: 'yes',
    });
    expect(JSON.parse(hostile.metadata!.annotations!['svc.io/exec-identity']!)).toMatchObject({ dagName: 'dag', node: 'build' });
  });

  test('the Pod does not share objects with the request (a Pod edited later leaves the definition alone)', () => {
    const k: KubernetesBlock = { volumeMounts: [{ name: 'v', mountPath: '/v' }], volumes: [{ name: 'v', emptyDir: {} }], tolerations: [{ key: 'a', operator: 'Exists' }] };
    const p = podOf({ kubernetes: k }).spec!;
    p.containers[0]!.volumeMounts![2]!.mountPath = '/changed';
    p.volumes![2]!.name = 'changed';
    p.tolerations![0]!.key = 'changed';
    p.volumes![2]!.emptyDir!.medium = 'Memory';
    expect(k).toEqual({ volumeMounts: [{ name: 'v', mountPath: '/v' }], volumes: [{ name: 'v', emptyDir: {} }], tolerations: [{ key: 'a', operator: 'Exists' }] });
  });
});

describe('stepPod with the DAG block and the step block merged', () => {
  test('field by field: step lists replace, maps merge with the step winning', () => {
    const dag: KubernetesBlock = {
      resources: { limits: { memory: '1Gi' } }, labels: { team: 'a', tier: '1' }, nodeSelector: { zone: 'x' },
      tolerations: [{ key: 'dag', operator: 'Exists' }], priorityClassName: 'low',
    };
    const step: KubernetesBlock = { labels: { tier: '2' }, nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'step', operator: 'Exists' }] };
    const pod = podOf({ kubernetes: mergeKubernetes(dag, step)! });
    expect(pod.metadata!.labels).toMatchObject({ team: 'a', tier: '2' });
    expect(pod.spec!.nodeSelector).toEqual({ zone: 'x', disk: 'ssd' });
    expect(pod.spec!.tolerations).toEqual([{ key: 'step', operator: 'Exists' }]);
    expect(pod.spec!.containers[0]!.resources).toEqual({ limits: { memory: '1Gi' } });
    expect(pod.spec!.priorityClassName).toBe('low');
  });
});

describe('stepPod of a step with its own container', () => {
  test('the container\'s image, its env before the step\'s (which wins), its workingDir when the step names none', () => {
    const step = { name: 'build', signalOnStop: 'SIGTERM', container: { image: 'alpine:3.20', env: ['FROM=box', 'A=box'], workingDir: '/src' } };
    const c = podOf({ step: step as unknown as ExecRequest['step'] }).spec!.containers[0]!;
    expect(c.image).toBe('alpine:3.20');
    expect(c.env!.filter((e) => e.name !== 'SVC_COMMANDS').map((e) => `${e.name}=${e.value}`)).toEqual(['FROM=box', 'A=box', 'A=1']);
    expect(c.workingDir).toBe('/src');
    expect(podOf().spec!.containers[0]!.image).toBe('debian:stable-slim');
  });
});

describe('the run-scoped container Pod of a DAG-level container', () => {
  test('the DAG\'s image, env, workingDir and user; the entry binary\'s agent as PID 1; owned by the run', async () => {
    const { runPod, runPodIdentity } = await import('./run-pod.js');
    const id = runPodIdentity({ dagName: 'dag', dagRunId: 'r1', attemptId: 'a1' });
    const pod = runPod(id, { image: 'python:3.13', env: ['X=1'], workingDir: '/work', user: '1000', pullPolicy: 'always' } as never, '/var/lib/svc/runs/r/attempts/a1/agent', owner, settings);
    const c = pod.spec!.containers[0]!;
    expect(c).toMatchObject({ image: 'python:3.13', env: [{ name: 'X', value: '1' }], workingDir: '/work', securityContext: { ...HARDENED, runAsUser: 1000 }, imagePullPolicy: 'Always' });
    expect(c.command).toEqual(['/.svc/usr/local/bin/svc-entry', 'agent', '--dir', '/var/lib/svc/runs/r/attempts/a1/agent']);
    expect(c.volumeMounts![1]).toEqual({ name: 'svc-data', mountPath: '/var/lib/svc/runs/r/attempts/a1', subPath: 'runs/r/attempts/a1' });
    expect(pod.metadata!.labels).toMatchObject({ 'svc.io/component': 'run-container', 'svc.io/run': 'run-1' });
    expect(pod.metadata!.ownerReferences![0]).toMatchObject({ kind: 'DagRun', name: 'run-1', uid: 'uid-1', controller: true });
    expect(pod.spec!.volumes!.map((v) => v.name)).toEqual(['svc-entry', 'svc-data']);
  });
});

describe('stepPod with step logs in a bucket (an upload grant)', () => {
  const grant = JSON.stringify({ url: 'http://s3/bucket', fields: { policy: 'p' }, stdout: 'k.out/', stderr: 'k.err/', result: 'k.results/x.json', writer: 'w' });
  const s3 = { ...settings, dataVolume: undefined };
  const upload = { stdout: '', stderr: '', result: '', root: '', upload: grant };

  test('no data volume; the grant comes from the execution\'s Secret; the entry is told to upload', () => {
    const { pod, secret } = stepPod(request(), owner, upload, s3);
    const c = pod.spec!.containers[0]!;
    expect(pod.spec!.volumes!.map((v) => v.name)).toEqual(['svc-entry']);
    expect(c.volumeMounts!.map((m) => m.name)).toEqual(['svc-entry']);
    expect(c.command).toEqual(expect.arrayContaining(['--upload-env', 'SVC_UPLOAD']));
    expect(c.command).not.toContain('--stdout');
    expect(c.command).not.toContain('--mask-env');
    expect(c.env).toContainEqual({ name: 'SVC_UPLOAD', valueFrom: { secretKeyRef: { name: pod.metadata!.name, key: 'upload' } } });
    expect(Buffer.from(secret!.data!.upload!, 'base64').toString()).toBe(grant);
    expect(JSON.stringify(pod)).not.toContain('policy');
  });

  test('with secrets too: the mask list beside the grant', () => {
    const { pod, secret } = stepPod(request({ secrets: ['hunter2'], env: { TOKEN: 'hunter2' } }), owner, upload, s3);
    expect(Object.keys(secret!.data!).sort()).toEqual(['env0', 'mask', 'upload']);
    expect(pod.spec!.containers[0]!.command).toEqual(expect.arrayContaining(['--mask-env', 'SVC_MASK', '--upload-env', 'SVC_UPLOAD']));
  });
});
