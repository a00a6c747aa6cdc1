/**
 * The Dag admission webhook, called by the test bed's real API server over TLS on loopback: `kubectl apply`
 * of an invalid Dag is refused with the messages POST /dags/validate gives; a valid one goes through.
 */
import { MemoryDagStore } from '../../src/adapters/dagstore/memory-dag-store.js';
import { dagTextOf } from '../../src/adapters/kube/manifest.js';
import { StoreDagCatalog } from '../../src/engine/services/dag-catalog.js';
import { DagService } from '../../src/engine/services/dag-service.js';
import { startAdmission, type AdmissionServer } from '../../src/main/server/admission.js';
import { kubectl } from '../testbed/helpers.js';
import { deleteNamespace, describeCluster, kubeFixture } from './env.js';
import { certificates } from './webhook-certs.js';

const dag = (ns: string, name: string, steps: string) => `apiVersion: svc.io/v1alpha1\nkind: Dag\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  steps:\n${steps}`;

describeCluster('the Dag admission webhook on a real API server', () => {
  let ns = '';
  let server: AdmissionServer;
  const service = new DagService(new MemoryDagStore(), new StoreDagCatalog(new MemoryDagStore()));

  beforeAll(async () => {
    ns = (await kubeFixture('admission')).namespace;
    const { dir, ca } = certificates();
    server = await startAdmission({ certDir: dir, host: '127.0.0.1', port: 0, dags: service });
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: `svc-dags-${ns}` },
      webhooks: [{
        name: 'dags.svc.io', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail', timeoutSeconds: 5,
        clientConfig: { url: `https://127.0.0.1:${server.port}/validate/dags`, caBundle: ca },
        rules: [{ apiGroups: ['svc.io'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['dags'] }],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      }],
    };
    const r = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(config) });
    expect(r.stderr).toBe('');
  });
  afterAll(async () => {
    await kubectl(['delete', 'validatingwebhookconfiguration', `svc-dags-${ns}`, '--ignore-not-found']);
    await server?.close();
    await deleteNamespace(ns);
  });

  test('an invalid Dag is refused at kubectl apply with the validator\'s messages; a valid one is created', async () => {
    const bad = dag(ns, 'bad', '    - name: a\n      command: echo a\n      depends: [missing]\n');
    const expected = (await service.validate(dagTextOf({ steps: [{ name: 'a', command: 'echo a', depends: ['missing'] }] }), 'bad')).errors;
    expect(expected.length).toBeGreaterThan(0);
    // The webhook's registration takes a moment to reach the API server's admission chain.
    let refused = { code: 0, stderr: '' };
    for (let i = 0; i < 50 && refused.code === 0; i++) {
      refused = await kubectl(['apply', '-f', '-'], { input: bad });
      if (refused.code === 0) {
        await kubectl(['delete', 'dag', 'bad', '-n', ns]);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('admission webhook "dags.svc.io" denied the request');
    for (const message of expected) expect(refused.stderr).toContain(message);
    const good = await kubectl(['apply', '-f', '-'], { input: dag(ns, 'good', '    - name: a\n      command: echo a\n') });
    expect(good.stderr).toBe('');
    expect((await kubectl(['get', 'dag', 'bad', '-n', ns])).code).not.toBe(0);
  });

  test('an invalid draft saved through the REST API (svc\'s own store) is let through: the API reports its errors', async () => {
    const { KubeDagStore } = await import('../../src/adapters/kube/dag-store.js');
    const store = new KubeDagStore((await import('../../src/adapters/kube/client.js')).loadKubeConfig(process.env.SVC_TEST_KUBECONFIG), ns);
    await store.write('draft', 'steps:\n  - name: a\n    depends: [nowhere]\n');
    expect((await store.read('draft'))?.text).toContain('nowhere');
    await store.close();
  });
});
