/**
 * Service-account tokens: the agent projects the kube-api-access volume (TokenRequest bound to the Pod,
 * kube-root-ca.crt, the namespace) and points KUBECONFIG at a kubeconfig with that token, so client-node's
 * loadFromDefault() in a Pod authenticates as the Pod's ServiceAccount, with its RBAC.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cluster, createNamespace, createPod, deleteNamespace, describeCluster, kubectl, sh, waitPhase } from './helpers.js';
import { nodeBinary } from './lib/testbed.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const clientNode = pathToFileURL(path.join(root, 'node_modules/@kubernetes/client-node/dist/index.js')).href;

/** Runs in the Pod: what the ServiceAccount may do, seen through client-node's default loading. */
const SCRIPT = `
const k8s = await import(process.env.CLIENT_NODE);
const fs = await import('node:fs');
const path = await import('node:path');
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const namespace = kc.getContextObject(kc.getCurrentContext()).namespace;
const caDir = path.dirname(kc.getCurrentCluster().caFile);
const out = { kubeconfig: process.env.KUBECONFIG ?? '', namespace, files: fs.readdirSync(caDir).sort(), namespaceFile: fs.readFileSync(path.join(caDir, 'namespace'), 'utf8') };
const core = kc.makeApiClient(k8s.CoreV1Api);
out.pods = (await core.listNamespacedPod({ namespace })).items.map((p) => p.metadata.name);
try { await core.listNamespacedSecret({ namespace }); out.secrets = 200; } catch (e) { out.secrets = e.code; }
const review = await kc.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
out.username = review.status.userInfo.username;
out.podName = review.status.userInfo.extra?.['authentication.kubernetes.io/pod-name']?.[0];
console.log(JSON.stringify(out));
`;

interface Seen {
  kubeconfig: string;
  namespace: string;
  files: string[];
  namespaceFile: string;
  pods: string[];
  secrets: number;
  username: string;
  podName?: string;
}

describeCluster(
  'service-account tokens in Pods',
  () => {
    let ns = '';
    beforeAll(async () => {
      ns = await createNamespace('sa');
      const { kube } = cluster();
      await kube.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } });
      await kube.post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'pod-reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
      });
      await kube.post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'reader-reads-pods' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
      });
    });
    afterAll(() => deleteNamespace(ns));

    test('client-node loadFromDefault() in a Pod acts as its ServiceAccount: pods yes, secrets 403', async () => {
      await createPod(ns, {
        metadata: { name: 'sa-check' },
        spec: {
          serviceAccountName: 'reader',
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: 'svc:dev', command: [nodeBinary(), '--input-type=module', '-e', SCRIPT], env: [{ name: 'CLIENT_NODE', value: clientNode }] }],
        },
      });
      const pod = await waitPhase(ns, 'sa-check', ['Succeeded', 'Failed'], 60000);
      const logs = (await kubectl(['logs', '-n', ns, 'sa-check'])).stdout;
      expect({ phase: pod.status?.phase, logs }).toMatchObject({ phase: 'Succeeded' });
      const seen = JSON.parse(logs.trim().split('\n').pop() ?? '{}') as Seen;
      const spec = (await cluster().kube.get<{ spec: { volumes: { name: string; projected?: object }[] } }>(`/api/v1/namespaces/${ns}/pods/sa-check`)).spec;
      const volume = spec.volumes.find((v) => v.name.startsWith('kube-api-access-'));
      expect(volume?.projected).toBeDefined();
      expect(seen.kubeconfig).toMatch(new RegExp(`/scratch/\\.svc-testbed/kubeconfig-${volume?.name}$`));
      expect(seen.namespace).toBe(ns);
      expect(seen.files).toEqual(['ca.crt', 'namespace', 'token']);
      expect(seen.namespaceFile).toBe(ns);
      expect(seen.pods).toContain('sa-check');
      expect(seen.secrets).toBe(403);
      expect(seen.username).toBe(`system:serviceaccount:${ns}:reader`);
      expect(seen.podName).toBe('sa-check'); // the token is bound to the Pod
    });

    test('no token without automount; a container’s own KUBECONFIG wins', async () => {
      await createPod(ns, {
        metadata: { name: 'no-token' },
        spec: { automountServiceAccountToken: false, restartPolicy: 'Never', containers: [sh('main', 'echo "KUBECONFIG=${KUBECONFIG:-none}"')] },
      });
      await createPod(ns, {
        metadata: { name: 'own-config' },
        spec: { restartPolicy: 'Never', containers: [sh('main', 'echo "KUBECONFIG=$KUBECONFIG"', { env: [{ name: 'KUBECONFIG', value: '/etc/mine' }] })] },
      });
      await waitPhase(ns, 'no-token', ['Succeeded']);
      await waitPhase(ns, 'own-config', ['Succeeded']);
      expect((await kubectl(['logs', '-n', ns, 'no-token'])).stdout).toBe('KUBECONFIG=none\n');
      expect((await kubectl(['logs', '-n', ns, 'own-config'])).stdout).toBe('KUBECONFIG=/etc/mine\n');
      const spec = (await cluster().kube.get<{ spec: { volumes?: { name: string }[] } }>(`/api/v1/namespaces/${ns}/pods/no-token`)).spec;
      expect(spec.volumes ?? []).toEqual([]);
    });

    test('the containers’ HOME is the Pod’s scratch dir: no ~/.kube/config of the host', async () => {
      await createPod(ns, { metadata: { name: 'home' }, spec: { restartPolicy: 'Never', containers: [sh('main', 'echo "$HOME|$SVC_TESTBED_SCRATCH"; test ! -e "$HOME/.kube/config"')] } });
      const pod = await waitPhase(ns, 'home', ['Succeeded', 'Failed']);
      expect(pod.status?.phase).toBe('Succeeded');
      const [home, scratch] = (await kubectl(['logs', '-n', ns, 'home'])).stdout.trim().split('|');
      expect(home).toBe(scratch);
      expect(fs.existsSync(home ?? '')).toBe(true);
    });
  },
  { testbedOnly: true },
);
