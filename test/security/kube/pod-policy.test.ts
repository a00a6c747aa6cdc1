/**
 * ATTACK on the test bed: a DAG author asks for a privileged step Pod through the Kubernetes API. The Dag
 * admission webhook (the API server's, wired as in a cluster) refuses it naming the field; a Dag that
 * reaches the store anyway (written while the webhook was away) runs, and its step fails before any Pod
 * exists, saying why. Every step Pod is hardened, and a namespace the operator labelled for Pod Security
 * admission `restricted` accepts svc's step Pods (a plain step, a DAG-level container) and refuses a
 * privileged Pod from anyone.
 */
import { eventually } from '../../helpers/server.js';
import { kubectl } from '../../testbed/helpers.js';
import { describeCluster } from '../../kube/env.js';
import { finished, kubeServer, podsOf, start } from '../../kube/servers.js';
import { certificates } from '../../kube/webhook-certs.js';

const PRIVILEGED = ['steps:', '  - name: pwn', '    command: "true"', '    kubernetes: {securityContext: {privileged: true}, tolerations: [{operator: Exists}]}'];
const dagManifest = (ns: string, name: string) => `apiVersion: svc.io/v1alpha1\nkind: Dag\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  steps:\n    - name: pwn\n      command: "true"\n      kubernetes: {securityContext: {privileged: true}, tolerations: [{operator: Exists}]}\n`;

describeCluster('the pod policy of steps on a real API server', () => {
  const certs = certificates();
  const srv = kubeServer({ SVC_WEBHOOK_CERT_DIR: certs.dir, SVC_WEBHOOK_PORT: '0', SVC_POD_SECURITY: 'restricted', SVC_POD_RETENTION: 'all' });
  let ns = '';
  beforeAll(async () => {
    await srv.start();
    ns = srv.server.namespace!;
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: `svc-pod-policy-${ns}` },
      webhooks: [{
        name: 'dags.svc.io', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail', timeoutSeconds: 5,
        clientConfig: { url: `https://127.0.0.1:${srv.server.admissionPort}/validate/dags`, caBundle: certs.ca },
        rules: [{ apiGroups: ['svc.io'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['dags'] }],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      }],
    };
    expect((await kubectl(['apply', '-f', '-'], { input: JSON.stringify(config) })).stderr).toBe('');
  }, 60_000);
  afterAll(async () => {
    await kubectl(['delete', 'validatingwebhookconfiguration', `svc-pod-policy-${ns}`, '--ignore-not-found']);
    await srv.stop();
  });

  test('kubectl apply of a Dag with a privileged step is refused by admission, naming the fields', async () => {
    // The webhook's registration takes a moment to reach the API server's admission chain.
    const refused = await eventually(async () => {
      const r = await kubectl(['apply', '-f', '-'], { input: dagManifest(ns, 'pwn') });
      if (r.code !== 0) return r;
      await kubectl(['delete', 'dag', 'pwn', '-n', ns]);
      return undefined;
    }, 'the webhook to refuse the Dag', 20_000);
    expect(refused.stderr).toContain('admission webhook "dags.svc.io" denied the request');
    expect(refused.stderr).toContain('kubernetes.securityContext.privileged: a step may not run privileged');
    expect(refused.stderr).toContain('kubernetes.tolerations[0].key: is empty');
    expect((await kubectl(['get', 'dag', 'pwn', '-n', ns])).code).not.toBe(0);
  });

  test('a Dag that got past admission: its run\'s step fails before any Pod exists, saying why', async () => {
    // Written while the webhook is away (admission validates every write it sees, svc's own included).
    await kubectl(['delete', 'validatingwebhookconfiguration', `svc-pod-policy-${ns}`, '--ignore-not-found']);
    await eventually(async () => {
      const r = await kubectl(['apply', '-f', '-'], { input: dagManifest(ns, 'probe-away') });
      return r.code === 0 ? r : undefined;
    }, 'the webhook to be gone', 20_000);
    srv.dag('sneaky', PRIVILEGED.join('\n'));
    await srv.get('/dags');
    const request = ['apiVersion: svc.io/v1alpha1', 'kind: DagRun', 'metadata: { name: sneaky-1 }', 'spec: { dag: sneaky }'].join('\n');
    expect((await kubectl(['apply', '-n', ns, '-f', '-'], { input: request })).code).toBe(0);
    const run = await finished(srv, 'sneaky', 'sneaky-1');
    expect(run.statusLabel).toBe('failed');
    expect(run.nodes[0].error).toContain('the install\'s pod policy refuses this step\'s Pod');
    expect(run.nodes[0].error).toContain('kubernetes.securityContext.privileged');
    expect(await podsOf(ns, 'svc.io/dag=sneaky')).toEqual([]);
  });

  test('the operator labelled the namespace restricted; svc\'s step Pods are hardened and admitted there, a privileged Pod is not', async () => {
    const labels = await eventually(async () => {
      const l = JSON.parse((await kubectl(['get', 'namespace', ns, '-o', 'json'])).stdout).metadata.labels;
      return l['pod-security.kubernetes.io/enforce'] ? l : undefined;
    }, 'the Pod Security label', 20_000);
    expect(labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    srv.dag('plain', ['steps:', '  - name: hi', '    command: echo hi', '    output: SAID'].join('\n'));
    srv.dag('boxed', ['container: {image: debian:stable-slim}', 'steps:', '  - name: inside', '    command: sh -c "sleep 3; echo inside"', '    output: SAID'].join('\n'));
    const [plain, boxed] = [await start(srv, 'plain'), await start(srv, 'boxed')];
    // The run's container Pod lives as long as its run: seen while the step runs.
    const runPod = await eventually(async () => (await podsOf(ns, 'svc.io/component=run-container'))[0], 'the run\'s container Pod', 30_000);
    expect(runPod.spec.containers[0].securityContext).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
    const plainRun = await finished(srv, 'plain', plain);
    expect([plainRun.statusLabel, plainRun.nodes[0].output]).toEqual(['succeeded', 'hi']);
    const boxedRun = await finished(srv, 'boxed', boxed);
    expect([boxedRun.statusLabel, boxedRun.nodes[0].output]).toEqual(['succeeded', 'inside']);
    const [pod] = await podsOf(ns, 'svc.io/dag=plain');
    expect(pod!.spec.automountServiceAccountToken).toBe(false);
    expect(pod!.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod!.spec.containers[0].securityContext).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, privileged: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
    // The label is in force: the API server itself refuses a privileged Pod in the namespace, whoever asks.
    const privileged = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'root-shell', namespace: ns }, spec: { containers: [{ name: 'c', image: 'debian:stable-slim', securityContext: { privileged: true } }] } };
    const r = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(privileged) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('violates PodSecurity "restricted');
  }, 120_000);
});
