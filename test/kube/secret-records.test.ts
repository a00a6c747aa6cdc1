/** Users, API keys and webhooks of the kubernetes backend: a RecordCollection in a Secret, on the test bed. */
import { recordsConformance, type Rec } from '../../src/adapters/records/conformance.js';
import { shapeCheck } from '../../src/adapters/records/file-records.js';
import { Secrets } from '../../src/adapters/kube/client.js';
import { SecretRecords } from '../../src/adapters/kube/secret-records.js';
import { kubectl } from '../testbed/helpers.js';
import { deleteNamespace, describeCluster, kubeFixture } from './env.js';

const isRec = shapeCheck<Rec>({ key: 'string', value: 'number' }, { note: 'string' });
const namespaces: string[] = [];

describeCluster('SecretRecords on a real API server', () => {
  afterAll(async () => { await Promise.all(namespaces.map(deleteNamespace)); });

  recordsConformance('SecretRecords', async () => {
    const { namespace, kc } = await kubeFixture('records');
    namespaces.push(namespace);
    const secrets = new Secrets(kc, namespace);
    return { open: async () => new SecretRecords(secrets, 'svc-recs', isRec), reopen: async () => new SecretRecords(secrets, 'svc-recs', isRec) };
  });

  test('two replicas updating at once: every change lands (compare-and-swap, retried); a reader sees it within its max age', async () => {
    const { namespace, kc } = await kubeFixture('records');
    namespaces.push(namespace);
    const a = new SecretRecords(new Secrets(kc, namespace), 'svc-recs', isRec);
    const b = new SecretRecords(new Secrets(kc, namespace), 'svc-recs', isRec, { maxAgeMs: 0 });
    await a.update(() => ({ next: [{ key: 'n', value: 0 }], result: undefined }));
    const bump = (c: SecretRecords<Rec>) => c.update((all) => ({ next: all.map((r) => ({ ...r, value: r.value + 1 })), result: undefined }));
    await Promise.all([...Array.from({ length: 5 }, () => bump(a)), ...Array.from({ length: 5 }, () => bump(b))]);
    expect((await b.all())[0]!.value).toBe(10);
  });

  test('the Secret holds the records as JSON, labelled as svc\'s', async () => {
    const { namespace, kc } = await kubeFixture('records');
    namespaces.push(namespace);
    await new SecretRecords(new Secrets(kc, namespace), 'svc-users', isRec).update(() => ({ next: [{ key: 'k', value: 1 }], result: undefined }));
    const secret = JSON.parse((await kubectl(['get', 'secret', 'svc-users', '-n', namespace, '-o', 'json'])).stdout);
    expect(secret.metadata.labels['app.kubernetes.io/managed-by']).toBe('svc');
    expect(JSON.parse(Buffer.from(secret.data['records.json'], 'base64').toString())).toEqual([{ key: 'k', value: 1 }]);
  });
});
