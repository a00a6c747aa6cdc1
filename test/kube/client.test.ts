/** The adapters' Kubernetes client against the test bed: errors mapped to the domain's, CAS, patches, labels. */
import { CustomResources, Secrets, type KubeObject } from '../../src/adapters/kube/client.js';
import { AlreadyExistsError, BadRequestError, ConflictError } from '../../src/core/errors.js';
import { deleteNamespace, describeCluster, kubeFixture } from './env.js';

const dag = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name, labels }, spec: { steps: [{ name: 'a', command: 'echo a' }] },
});

describeCluster('the Kubernetes client of the adapters', () => {
  let ns = '';
  let dags: CustomResources<KubeObject>;
  let secrets: Secrets;
  beforeAll(async () => {
    const f = await kubeFixture('client');
    ns = f.namespace;
    dags = new CustomResources(f.kc, ns, 'dags');
    secrets = new Secrets(f.kc, ns);
  });
  afterAll(() => deleteNamespace(ns));

  test('create, get, compare-and-swap replace, merge patches of spec and status, list by label, delete', async () => {
    const created = await dags.create(dag('one', { team: 'a' }));
    await dags.create(dag('two', { team: 'b' }));
    await expect(dags.create(dag('one'))).rejects.toBeInstanceOf(AlreadyExistsError);
    expect((await dags.get('one'))!.metadata.uid).toBe(created.metadata.uid);
    expect(await dags.get('nope')).toBeUndefined();
    const replaced = await dags.replace({ ...created, spec: { description: 'v2', steps: [] } });
    await expect(dags.replace({ ...created, spec: { description: 'stale' } })).rejects.toBeInstanceOf(ConflictError);
    const patched = await dags.mergePatchStatus('one', { status: { suspended: true } });
    expect(patched.status).toEqual({ suspended: true });
    expect((patched.spec as { description: string }).description).toBe('v2');
    expect(patched.metadata.resourceVersion).not.toBe(replaced.metadata.resourceVersion);
    await dags.mergePatch('one', { metadata: { annotations: { x: 'y' } } });
    expect((await dags.get('one'))!.metadata.annotations).toEqual({ x: 'y' });
    expect((await dags.list('team=b')).map((d) => d.metadata.name)).toEqual(['two']);
    await dags.delete('two');
    await dags.delete('two');
    expect((await dags.list()).map((d) => d.metadata.name)).toEqual(['one']);
  });

  test('a delete bound to a version refuses once the object changed (nothing lost), and deletes that version', async () => {
    const v1 = await dags.create(dag('guarded'));
    const v2 = await dags.replace({ ...v1, spec: { description: 'changed', steps: [] } });
    await expect(dags.delete('guarded', { uid: v1.metadata.uid!, resourceVersion: v1.metadata.resourceVersion! })).rejects.toBeInstanceOf(ConflictError);
    expect((await dags.get('guarded'))!.spec).toEqual({ description: 'changed', steps: [] });
    await dags.delete('guarded', { uid: v2.metadata.uid!, resourceVersion: v2.metadata.resourceVersion! });
    expect(await dags.get('guarded')).toBeUndefined();
  });

  test('a field the schema does not know is refused (strict field validation), not pruned', async () => {
    await expect(dags.create({ ...dag('typo'), spec: { stepz: [] } })).rejects.toBeInstanceOf(BadRequestError);
    expect(await dags.get('typo')).toBeUndefined();
  });

  test('Secrets: create, get, compare-and-swap replace', async () => {
    const s = await secrets.create({ metadata: { name: 'svc-test' }, data: { k: Buffer.from('v1').toString('base64') } });
    await secrets.replace({ ...s, data: { k: Buffer.from('v2').toString('base64') } });
    await expect(secrets.replace({ ...s, data: { k: '' } })).rejects.toBeInstanceOf(ConflictError);
    expect(Buffer.from((await secrets.get('svc-test'))!.data!.k!, 'base64').toString()).toBe('v2');
    expect(await secrets.get('none')).toBeUndefined();
  });
});
