/**
 * The Helm chart and the Dockerfile, checked the way CI can without a container engine: hadolint on the
 * Dockerfile, `helm lint --strict`, and `helm template` for several sets of values validated by
 * kubeconform -strict against the schemas of the test bed's API server and of our CRDs.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { cluster, describeCluster, kubectl } from '../testbed/helpers.js';
import { describeTools, toolPath } from '../helpers/tools.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const CHART = join(ROOT, 'charts/svc');
const NODE = join(ROOT, 'node_modules/.bin/node');

interface Out { code: number; stdout: string; stderr: string }
function run(file: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Out> {
  return new Promise((resolve) => {
    const p = execFile(file, args, { cwd: ROOT, env: opts.env ?? process.env, maxBuffer: 64 << 20 }, (e, stdout, stderr) => {
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
    });
    p.stdin?.end(opts.input ?? '');
  });
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const helm = (args: string[]) => run(toolPath('helm')!, args);
const template = (values: string[]) => helm(['template', 'demo', CHART, '--namespace', 'svc', ...values.flatMap((v) => ['--set', v])]);
const objects = (text: string): Obj[] => parseAllDocuments(text).map((d) => d.toJS() as Obj).filter(Boolean);

const VALUE_SETS: Record<string, string[]> = {
  defaults: [],
  'everything on': [
    'rbac.clusterRoles=true', 'api.ingress.enabled=true', 'api.ingress.className=nginx', 'api.ingress.tls[0].secretName=svc-tls', 'api.ingress.tls[0].hosts[0]=svc.example.com',
    'networkPolicy.enabled=true', 'auth.mode=builtin', 'auth.existingSecret=svc-auth', 'persistence.existingClaim=shared', 'operator.replicas=2',
    'operator.nodeSelector.pool=system', 'api.tolerations[0].key=dedicated', 'api.tolerations[0].operator=Exists', 'env.SVC_TZ=Europe/Berlin', 'imagePullSecrets[0]=regcred',
  ],
  oidc: ['auth.mode=oidc', 'auth.existingSecret=svc-auth', 'auth.oidc.issuer=https://id.example.com', 'auth.oidc.clientId=svc', 'auth.oidc.clientUrl=https://svc.example.com'],
  'no webhook, no node reads': ['webhook.enabled=false', 'rbac.readNodes=false', 'rbac.readNodeLeases=false', 'api.replicas=1'],
  'cert-manager and ServiceMonitor': ['webhook.certManager.enabled=true', 'metrics.serviceMonitor.enabled=true'],
  's3 log store': ['logStore.type=s3', 'logStore.s3.bucket=svc-logs', 'logStore.s3.endpoint=http://minio.storage:9000', 'logStore.s3.credentialsSecret=svc-s3'],
  'cluster-wide': ['logStore.type=s3', 'logStore.s3.bucket=svc-logs', 'watch.namespaces=all', 'watch.namespaceSelector=svc.io/runs=enabled'],
  'watched namespaces': ['logStore.type=s3', 'logStore.s3.bucket=svc-logs', 'watch.namespaces={team-a,team-b}'],
  'widened pod policy, no Pod Security': ['podPolicy.serviceAccounts={batch}', 'podPolicy.secrets={team-a-*}', 'podPolicy.root=true', 'podSecurity.enforce='],
};
/** Kinds of other projects' CRDs (cert-manager, Prometheus Operator) we have no schema for. */
const FOREIGN = ['Certificate', 'Issuer', 'ServiceMonitor'];

describeTools('the Dockerfile', ['hadolint'], () => {
  test('passes hadolint, which does report the faults it should', async () => {
    const clean = await run(toolPath('hadolint')!, ['Dockerfile']);
    expect([clean.code, clean.stdout + clean.stderr]).toEqual([0, '']);
    const bad = await run(toolPath('hadolint')!, ['-'], { input: 'FROM debian\nRUN apt-get install curl\n' });
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toMatch(/DL3006/); // untagged base image
    expect(bad.stdout).toMatch(/DL3008|DL3015/); // unpinned or --no-install-recommends missing
  });
});

describeTools('the Helm chart', ['helm', 'kubeconform'], () => {
  describeCluster('against the API server\'s schemas', () => {
    let schemas: string;
    beforeAll(async () => {
      schemas = mkdtempSync(join(tmpdir(), 'svc-schemas-'));
      const c = cluster();
      const env = { ...process.env, KUBECONFIG: c.kubeconfig, PATH: `${dirname(c.kubectlPath)}:${process.env.PATH}` };
      const made = await run(NODE, ['hack/kube-schemas.mjs', schemas], { env });
      expect(made.stderr).toBe('');
      expect(made.stdout).toMatch(/\d+ schemas in/);
    });
    afterAll(() => rmSync(schemas, { recursive: true, force: true }));

    const kubeconform = (input: string, skip: string[] = []) => run(toolPath('kubeconform')!, [
      '-strict', '-summary', '-schema-location', `${schemas}/{{.ResourceKind}}{{.KindSuffix}}.json`, ...(skip.length ? ['-skip', skip.join(',')] : []), '-',
    ], { input });

    test.each(Object.entries(VALUE_SETS))('%s: helm template output is valid for kubeconform -strict', async (_name, values) => {
      const t = await template(values);
      expect(t.stderr).toBe('');
      expect(t.code).toBe(0);
      const v = await kubeconform(t.stdout, FOREIGN);
      expect(v.stdout).toMatch(/Invalid: 0, Errors: 0/);
      expect(v.code).toBe(0);
    });

    test('kubeconform -strict does refuse an unknown field (the schemas are strict)', async () => {
      const t = await template([]);
      const v = await kubeconform(t.stdout.replace('imagePullPolicy: IfNotPresent', 'imagePullPolicy: IfNotPresent\n          imagePulPolicy: Always'));
      expect(v.code).not.toBe(0);
      expect(v.stdout).toMatch(/additional properties 'imagePulPolicy' not allowed/);
    });

    test('config/ (kustomize) is the chart: kubectl kustomize of each directory equals helm template with its values', async () => {
      const gen = (await import(join(ROOT, 'hack/gen-config.mjs'))) as {
        VARIANTS: Record<string, string[]>; render(values: string[]): Obj[]; normalize(o: Obj): Obj; keyOf(o: Obj): string;
      };
      const keyed = (list: Obj[]) => Object.fromEntries(list.filter((o) => !['CustomResourceDefinition', 'Namespace'].includes(o.kind)).map((o) => [gen.keyOf(o), o]));
      const dirs: [string, string[]][] = [...Object.entries(gen.VARIANTS), ['default', gen.VARIANTS.base!]];
      for (const [dir, values] of dirs) {
        const k = await run(cluster().kubectlPath, ['kustomize', join(ROOT, 'config', dir)]);
        expect([dir, k.stderr]).toEqual([dir, '']);
        const fromKustomize = objects(k.stdout);
        expect(fromKustomize.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name).sort()).toEqual(['dagruns.svc.io', 'dags.svc.io']);
        expect([dir, keyed(fromKustomize)]).toEqual([dir, keyed(gen.render(values))]);
      }
    });

    test('kubectl apply -k config/default: the API server accepts every object (server-side dry run)', async () => {
      const ns = await kubectl(['create', 'namespace', 'svc']);
      try {
        const r = await kubectl(['apply', '--server-side', '--dry-run=server', '-k', join(ROOT, 'config/default')]);
        expect([r.code, r.stderr]).toEqual([0, '']);
        expect(r.stdout).toMatch(/deployment.apps\/svc-operator serverside-applied \(server dry run\)/);
        expect(r.stdout).toMatch(/lease.coordination.k8s.io\/svc-operator serverside-applied/);
      } finally {
        if (ns.code === 0) await kubectl(['delete', 'namespace', 'svc', '--wait=false']);
      }
    });

    test('the chart\'s CRDs and the example Dag manifests are valid', async () => {
      const v = await run(toolPath('kubeconform')!, ['-strict', '-summary', '-schema-location', `${schemas}/{{.ResourceKind}}{{.KindSuffix}}.json`, 'charts/svc/crds', 'examples/kubernetes']);
      expect(v.stdout).toMatch(/Invalid: 0, Errors: 0, Skipped: 0/);
      expect(v.code).toBe(0);
    });
  });

  test('helm lint --strict passes with the defaults, with everything on and cluster-wide', async () => {
    for (const values of [VALUE_SETS.defaults!, VALUE_SETS['everything on']!, VALUE_SETS['cluster-wide']!]) {
      const l = await helm(['lint', '--strict', CHART, ...values.flatMap((v) => ['--set', v])]);
      expect([l.code, l.stdout]).toEqual([0, expect.stringMatching(/1 chart\(s\) linted, 0 chart\(s\) failed/)]);
    }
  });

  test.each([
    [['auth.mode=none'], 'auth.mode=none serves the API (starting runs of commands included) to anyone who reaches it: set auth.allowUnauthenticated=true'],
    [['auth.mode=oidc'], 'auth.mode=oidc needs auth.existingSecret'],
    [['auth.mode=ldap'], 'auth.mode: "ldap" must be builtin, oidc or none'],
    [['auth.mode=oidc', 'auth.existingSecret=s'], 'auth.oidc.issuer is required with auth.mode=oidc'],
    [['logStore.type=s3'], 'logStore.s3.bucket is required with logStore.type=s3'],
    [['logStore.type=nfs'], 'logStore.type: "nfs" must be volume or s3'],
    [['watch.namespaces=all'], 'watch.namespaces needs logStore.type=s3'],
    [['logStore.type=s3', 'logStore.s3.bucket=b', 'watch.namespaceSelector=a=b'], 'watch.namespaceSelector narrows watch.namespaces=all'],
    [['podPolicy.root=true'], 'podPolicy.root and podPolicy.capabilities need podSecurity.enforce=baseline'],
    [['podPolicy.capabilities={SYS_ADMIN}'], 'podPolicy.root and podPolicy.capabilities need podSecurity.enforce=baseline'],
    [['podSecurity.enforce=privileged'], 'podSecurity.enforce: "privileged" must be restricted, baseline or'],
  ])('%j is refused: %s', async (values, message) => {
    const t = await template(values);
    expect(t.code).not.toBe(0);
    expect(t.stderr).toContain(message);
  });

  test('least privilege: no wildcard, step Pods get no token, rights only in the release namespace', async () => {
    const all = objects((await template([])).stdout);
    const roles = all.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole');
    expect(roles.map((r) => `${r.kind}/${r.metadata.name}`).sort()).toEqual([
      'ClusterRole/svc-demo-svc-nodes', 'ClusterRole/svc-demo-svc-operator-pod-security', 'Role/demo-svc-api', 'Role/demo-svc-operator', 'Role/svc-demo-svc-node-leases',
    ]);
    for (const r of roles) for (const rule of r.rules) expect(JSON.stringify(rule)).not.toContain('*');
    const clusterWide = all.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules);
    // Labelling its own namespace for Pod Security admission (podSecurity.enforce), by name.
    expect(clusterWide).toHaveLength(2);
    expect(clusterWide).toEqual(expect.arrayContaining([{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }, { apiGroups: [''], resources: ['namespaces'], resourceNames: ['svc'], verbs: ['get', 'patch'] }]));
    const steps = all.find((o) => o.kind === 'ServiceAccount' && o.metadata.name === 'demo-svc-steps');
    expect(steps.automountServiceAccountToken).toBe(false);
    const operator = all.find((o) => o.kind === 'Deployment' && o.metadata.name === 'demo-svc-operator');
    const env = Object.fromEntries(operator.spec.template.spec.containers[0].env.map((e: Obj) => [e.name, e.value ?? e.valueFrom]));
    expect(env.SVC_STEP_SERVICE_ACCOUNT).toBe('demo-svc-steps');
    const api = all.find((o) => o.kind === 'Deployment' && o.metadata.name === 'demo-svc-api');
    expect(api.spec.template.spec.containers[0].env).toContainEqual({ name: 'SVC_AUDIT_SINK', value: 'stdout' });
    for (const d of all.filter((o) => o.kind === 'Deployment')) {
      const sc = d.spec.template.spec.containers[0].securityContext;
      expect([d.metadata.name, sc.readOnlyRootFilesystem, sc.runAsNonRoot, sc.allowPrivilegeEscalation]).toEqual([d.metadata.name, true, true, false]);
    }
  });

  test('operator.secretEnvFrom: the operator reads that one Secret (env secrets of DAGs), nothing more', async () => {
    const all = objects((await template(['operator.secretEnvFrom=svc-step-env'])).stdout);
    const operator = all.find((o) => o.kind === 'Deployment' && o.metadata.name === 'demo-svc-operator');
    const env = Object.fromEntries(operator.spec.template.spec.containers[0].env.map((e: Obj) => [e.name, e.value]));
    expect(env.SVC_SECRET_ENV_FROM).toBe('svc-step-env');
    const rules = all.find((o) => o.kind === 'Role' && o.metadata.name === 'demo-svc-operator').rules.filter((r: Obj) => r.resources.includes('secrets'));
    expect(rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['svc-step-env'], verbs: ['get'] },
    ]);
    const byDefault = objects((await template([])).stdout).find((o) => o.kind === 'Deployment' && o.metadata.name === 'demo-svc-operator');
    expect(byDefault.spec.template.spec.containers[0].env.map((e: Obj) => e.name)).not.toContain('SVC_SECRET_ENV_FROM');
  });

  test('watch.namespaces: the runs\' rights in a ClusterRole, bound cluster-wide with all, in each listed namespace else; the Leases stay in the release namespace', async () => {
    const rbac = (all: Obj[]) => all.filter((o) => o.kind.endsWith('Role') || o.kind.endsWith('RoleBinding')).map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();
    const byDefault = rbac(objects((await template([])).stdout));
    const wide = objects((await template(VALUE_SETS['cluster-wide']!)).stdout);
    expect(rbac(wide)).toEqual([...byDefault, 'ClusterRole//svc-demo-svc-operator-runs', 'ClusterRoleBinding//svc-demo-svc-operator-runs'].sort());
    const runs = wide.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'svc-demo-svc-operator-runs');
    expect(runs.rules.map((r: Obj) => r.resources.join())).toEqual(['dags', 'dagruns', 'dagruns/status', 'pods', 'secrets', 'namespaces']);
    expect(runs.rules.find((r: Obj) => r.resources[0] === 'secrets').verbs).toEqual(['create', 'delete']);
    expect(wide.find((o) => o.kind === 'Role' && o.metadata.name === 'demo-svc-operator').rules.find((r: Obj) => r.resources[0] === 'leases').resourceNames).toEqual(['svc-operator', 'svc-admission']);
    const env = (all: Obj[]) => Object.fromEntries(all.find((o) => o.kind === 'Deployment' && o.metadata.name === 'demo-svc-operator').spec.template.spec.containers[0].env.map((e: Obj) => [e.name, e.value]));
    expect(env(wide)).toMatchObject({ SVC_WATCH_NAMESPACES: 'all', SVC_WATCH_NAMESPACE_SELECTOR: 'svc.io/runs=enabled' });
    expect(wide.find((o) => o.kind === 'ValidatingWebhookConfiguration').webhooks[0].namespaceSelector).toBeUndefined();
    const listed = objects((await template(VALUE_SETS['watched namespaces']!)).stdout);
    expect(rbac(listed)).toEqual([...byDefault, 'ClusterRole//svc-demo-svc-operator-runs', 'RoleBinding/team-a/svc-demo-svc-operator-runs', 'RoleBinding/team-b/svc-demo-svc-operator-runs'].sort());
    expect(env(listed).SVC_WATCH_NAMESPACES).toBe('team-a,team-b');
    expect(listed.find((o) => o.kind === 'ValidatingWebhookConfiguration').webhooks[0].namespaceSelector.matchExpressions[0].values).toEqual(['svc', 'team-a', 'team-b']);
    expect(env(objects((await template([])).stdout)).SVC_WATCH_NAMESPACES).toBeUndefined();
  });

  test('with the s3 log store: no claim, the bucket and its credentials for both svc processes, no data claim for steps', async () => {
    const all = objects((await template(VALUE_SETS['s3 log store']!)).stdout);
    expect(all.filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual([]);
    for (const d of all.filter((o) => o.kind === 'Deployment')) {
      const pod = d.spec.template.spec;
      const env = Object.fromEntries(pod.containers[0].env.map((e: Obj) => [e.name, e.value]));
      expect([d.metadata.name, env.SVC_S3_BUCKET, env.SVC_S3_ENDPOINT, env.SVC_DATA_CLAIM]).toEqual([d.metadata.name, 'svc-logs', 'http://minio.storage:9000', undefined]);
      const auth = d.metadata.name === 'demo-svc-api' ? [{ secretRef: { name: 'demo-svc-auth' } }] : [];
      expect(pod.containers[0].envFrom).toEqual([...auth, { secretRef: { name: 'svc-s3' } }]);
      expect(pod.volumes.find((v: Obj) => v.name === 'data')).toEqual({ name: 'data', emptyDir: {} });
    }
  });

  test('the pod policy reaches both svc processes as it is written; the operator labels the namespaces it serves for Pod Security', async () => {
    const env = (all: Obj[], name: string) => Object.fromEntries(all.find((o) => o.kind === 'Deployment' && o.metadata.name === name).spec.template.spec.containers[0].env.map((e: Obj) => [e.name, e.value]));
    const byDefault = objects((await template([])).stdout);
    for (const d of ['demo-svc-api', 'demo-svc-operator']) {
      expect(JSON.parse(env(byDefault, d).SVC_POD_POLICY)).toEqual({ serviceAccounts: [], priorityClasses: [], secrets: [], claims: [], capabilities: [], tolerationKeys: [], root: false });
    }
    expect(env(byDefault, 'demo-svc-operator').SVC_POD_SECURITY).toBe('restricted');
    const wide = objects((await template(VALUE_SETS['widened pod policy, no Pod Security']!)).stdout);
    expect(JSON.parse(env(wide, 'demo-svc-api').SVC_POD_POLICY)).toMatchObject({ serviceAccounts: ['batch'], secrets: ['team-a-*'], root: true });
    expect(env(wide, 'demo-svc-operator').SVC_POD_SECURITY).toBe('off');
    expect(wide.filter((o) => o.metadata.name.endsWith('-pod-security'))).toEqual([]);
    const rule = (values: string[]) => async () => objects((await template(values)).stdout).find((o) => o.kind === 'ClusterRole' && o.metadata.name.endsWith('-pod-security')).rules[0];
    expect(await rule(VALUE_SETS['watched namespaces']!)()).toEqual({ apiGroups: [''], resources: ['namespaces'], resourceNames: ['svc', 'team-a', 'team-b'], verbs: ['get', 'patch'] });
    expect((await rule(VALUE_SETS['cluster-wide']!)()).resourceNames).toBeUndefined();
    // svc's own Pods satisfy restricted: non-root, no escalation, no capability, RuntimeDefault seccomp.
    for (const d of byDefault.filter((o) => o.kind === 'Deployment')) {
      const sc = d.spec.template.spec.containers[0].securityContext;
      expect([d.metadata.name, sc.capabilities, sc.seccompProfile]).toEqual([d.metadata.name, { drop: ['ALL'] }, { type: 'RuntimeDefault' }]);
    }
  });

  test('the self-signed webhook certificate: the CA in the webhook signs the Service\'s serving certificate', async () => {
    const { X509Certificate } = await import('node:crypto');
    const all = objects((await template([])).stdout);
    const secret = all.find((o) => o.kind === 'Secret' && o.metadata.name === 'demo-svc-webhook-tls');
    const hook = all.find((o) => o.kind === 'ValidatingWebhookConfiguration');
    const ca = new X509Certificate(Buffer.from(hook.webhooks[0].clientConfig.caBundle, 'base64'));
    const cert = new X509Certificate(Buffer.from(secret.data['tls.crt'], 'base64'));
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:demo-svc-api.svc.svc');
    expect(hook.webhooks[0].clientConfig.service).toEqual({ name: 'demo-svc-api', namespace: 'svc', port: 443, path: '/validate/dags' });
    expect(hook.webhooks[0].namespaceSelector).toEqual({ matchLabels: { 'kubernetes.io/metadata.name': 'svc' } });
  });
});
