/**
 * The Dag admission webhook, called by the test bed's real API server over TLS on loopback: `kubectl apply`
 * of an invalid Dag is refused with the messages POST /dags/validate gives; a valid one goes through.
 */
import { MemoryDagStore } from '../../src/adapters/dagstore/memory-dag-store.js';
import { KubeDagStore } from '../../src/adapters/kube/dag-store.js';
import { dagTextOf } from '../../src/adapters/kube/manifest.js';
import { StoreDagCatalog } from '../../src/engine/services/dag-catalog.js';
import { DagService } from '../../src/engine/services/dag-service.js';
import { kubectl } from '../testbed/helpers.js';
import { deleteNamespace, describeCluster, kubeFixture } from './env.js';
import { registerWebhook, waitForWebhook, type Webhook } from './webhook.js';

const dag = (ns: string, name: string, steps: string) => `apiVersion: svc.io/v1alpha1\nkind: Dag\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  steps:\n${steps}`;

describeCluster('the Dag admission webhook on a real API server', () => {
  let ns = '';
  let kc: Awaited<ReturnType<typeof kubeFixture>>['kc'];
  let webhook: Webhook | undefined;
  const service = new DagService(new MemoryDagStore(), new StoreDagCatalog(new MemoryDagStore()));

  beforeAll(async () => {
    ({ namespace: ns, kc } = await kubeFixture('admission'));
    webhook = await registerWebhook(ns, service);
  });
  afterAll(async () => {
    await webhook?.close();
    await deleteNamespace(ns);
  });

  test('an invalid Dag is refused at kubectl apply with the validator\'s messages; a valid one is created', async () => {
    const bad = dag(ns, 'bad', '    - name: a\n      command: echo a\n      depends: [missing]\n');
    const expected = (await service.validate(dagTextOf({ steps: [{ name: 'a', command: 'echo a', depends: ['missing'] }] }), 'bad')).errors;
    expect(expected.length).toBeGreaterThan(0);
    await waitForWebhook(bad);
    const refused = await kubectl(['apply', '-f', '-'], { input: bad });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('admission webhook "dags.svc.io" denied the request');
    for (const message of expected) expect(refused.stderr).toContain(message);
    const good = await kubectl(['apply', '-f', '-'], { input: dag(ns, 'good', '    - name: a\n      command: echo a\n') });
    expect(good.stderr).toBe('');
    expect((await kubectl(['get', 'dag', 'bad', '-n', ns])).code).not.toBe(0);
  });

  test('a text saved through svc\'s own store passes admission and comes back as written, comments kept', async () => {
    await waitForWebhook(dag(ns, 'probe', '    - name: a\n      depends: [missing]\n'));
    const store = new KubeDagStore(kc, ns);
    const text = 'steps:\n  # the first step\n  - name: a\n    command: echo a\n';
    await store.write('written', text);
    expect((await store.read('written'))?.text).toBe(text);
    await store.write('written', `${text}  - name: b\n    command: echo b\n`);
    expect((await store.read('written'))?.text).toContain('# the first step');
    await store.close();
  });
});
