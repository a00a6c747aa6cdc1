/** KubeDagStore on the test bed: the DagStore conformance suite in both modes, and what only Kubernetes has. */
import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import { dagStoreConformance } from '../../src/adapters/dagstore/conformance.js';
import { CustomResources, loadKubeConfig } from '../../src/adapters/kube/client.js';
import { KubeDagStore, type KubeDagStoreOptions } from '../../src/adapters/kube/dag-store.js';
import { dagManifest, manifestText } from '../../src/adapters/kube/manifest.js';
import { dagObjectName, SVC_ANNOTATIONS } from '../../src/core/naming.js';
import { parseDagText } from '../../src/core/spec/load.js';
import { cluster, eventually, kubectl } from '../testbed/helpers.js';
import { deleteNamespace, describeCluster, kubeFixture } from './env.js';

const examples = new URL('../../examples/', import.meta.url);
const TEXT = '# written through the store\nsteps:\n  - name: a   # first\n    command: echo a\n  - name: b\n    command: echo b\n    depends: a\n';

interface DagJson {
  metadata: { name: string; annotations: Record<string, string> };
  spec: Record<string, unknown>;
}

describeCluster('KubeDagStore', () => {
  const opened: KubeDagStore[] = [];
  const namespaces: string[] = [];

  async function open(prefix: string, opts: KubeDagStoreOptions = {}): Promise<KubeDagStore> {
    const f = await kubeFixture(prefix);
    namespaces.push(f.namespace);
    return replica(f.namespace, opts);
  }
  /** Another store on the same namespace: a second API replica. */
  async function replica(namespace: string, opts: KubeDagStoreOptions = {}): Promise<KubeDagStore> {
    const store = new KubeDagStore(loadKubeConfig(cluster().kubeconfig), namespace, opts);
    opened.push(store);
    await store.ready();
    return store;
  }
  afterEach(() => Promise.all(opened.splice(0).map((s) => s.close())));
  afterAll(() => Promise.all(namespaces.map(deleteNamespace)));

  dagStoreConformance('KubeDagStore', () => open('dagstore'));
  dagStoreConformance('KubeDagStore with a watch cache', () => open('dagstore-cache', { cache: true }));

  const getDag = async (ns: string, name: string): Promise<DagJson> => {
    const r = await kubectl(['get', 'dag', name, '-n', ns, '-o', 'json']);
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout) as DagJson;
  };
  const apply = async (ns: string, manifest: string): Promise<void> => {
    const r = await kubectl(['apply', '-n', ns, '-f', '-'], { input: manifest });
    expect(r).toMatchObject({ code: 0 });
  };

  describe.each([['direct', {}], ['cached', { cache: true }]])('%s', (_mode, opts: KubeDagStoreOptions) => {
    test('a Dag applied with kubectl is listed, and reads as a DAG text that loads to the same steps', async () => {
      const store = await open('dagstore-kubectl', opts);
      await apply(store.namespace, readFileSync(new URL('kubernetes/hello.yaml', examples), 'utf8'));
      await apply(store.namespace, 'apiVersion: svc.io/v1alpha1\nkind: Dag\nmetadata:\n  name: bare\nspec:\n  steps:\n    - command: echo bare\n');
      await apply(store.namespace, 'apiVersion: svc.io/v1alpha1\nkind: Dag\nmetadata:\n  name: dotted.name\nspec: {}\n');
      const listed = await eventually('the applied Dags listed', async () => {
        const l = await store.list();
        return l.files.length + l.errors.length === 3 && l;
      });
      expect(listed.files.map((f) => f.fileName)).toEqual(['bare', 'hello']);
      expect(listed.errors).toEqual([expect.stringContaining('dotted.name')]);
      const read = await store.read('hello');
      const loaded = parseDagText(read!.text, 'hello');
      expect(loaded.errors).toEqual([]);
      const original = parseDagText(readFileSync(new URL('hello.yaml', examples), 'utf8'), 'hello');
      expect(loaded.definition.steps).toEqual(original.definition.steps);
      expect(await store.stat('hello')).toEqual({ fileName: 'hello', stamp: read!.stamp, updatedAt: read!.updatedAt });
    });

    test('a write shows in kubectl with the spec fields and no defaults; kubectl apply since wins over the stored text', async () => {
      const store = await open('dagstore-write', opts);
      await store.write('hello', TEXT);
      const dag = await getDag(store.namespace, 'hello');
      expect(dag.spec).toEqual({ steps: [{ name: 'a', command: 'echo a' }, { name: 'b', command: 'echo b', depends: 'a' }] });
      expect(dag.metadata.annotations[SVC_ANNOTATIONS.fileName]).toBe('hello');
      const before = await store.read('hello');
      expect(before?.text).toBe(TEXT);

      const changed = 'description: changed by kubectl\nsteps:\n  - name: only\n    command: echo only\n';
      await apply(store.namespace, manifestText(dagManifest(changed, 'hello').manifest!));
      const after = await store.read('hello');
      expect(after?.stamp).not.toBe(before?.stamp);
      expect(after?.text).not.toContain('#');
      const loaded = parseDagText(after!.text, 'hello');
      expect(loaded.errors).toEqual([]);
      expect(loaded.definition.description).toBe('changed by kubectl');
      expect(loaded.definition.steps).toEqual(parseDagText(changed, 'hello').definition.steps);
    });

    test('a text that is no valid DAG is kept as written, with an empty spec', async () => {
      const store = await open('dagstore-invalid', opts);
      const text = 'steps:\n  - name: a\n    command: [unclosed\n';
      await store.write('broken', text);
      expect((await getDag(store.namespace, 'broken')).spec).toEqual({});
      expect((await store.read('broken'))?.text).toBe(text);
      expect((await store.list()).files.map((f) => f.fileName)).toEqual(['broken']);
    });

    test('a fileName that is no DNS label round-trips through its object name', async () => {
      const store = await open('dagstore-names', opts);
      await store.write('My_Dag', TEXT);
      const dag = await getDag(store.namespace, dagObjectName('My_Dag'));
      expect(dag.metadata.annotations[SVC_ANNOTATIONS.fileName]).toBe('My_Dag');
      expect((await store.list()).files.map((f) => f.fileName)).toEqual(['My_Dag']);
      expect((await store.read('My_Dag'))?.text).toBe(TEXT);
      await store.setSuspended('My_Dag', true);
      await store.rename('My_Dag', 'Other_Dag');
      expect(await store.suspended()).toEqual(new Set(['Other_Dag']));
      expect((await store.read('Other_Dag'))?.text).toBe(TEXT);
      expect((await store.list()).files.map((f) => f.fileName)).toEqual(['Other_Dag']);
    });

    test('two replicas writing one Dag at once: conflicts are retried, the last text is one of theirs', async () => {
      const a = await open('dagstore-replicas', opts);
      const b = await replica(a.namespace, opts);
      for (let i = 0; i < 5; i++) await Promise.all([a.write('shared', `# a ${i}\n${TEXT}`), b.write('shared', `# b ${i}\n${TEXT}`)]);
      expect(['# a 4', '# b 4']).toContain((await a.read('shared'))?.text.split('\n')[0]);
    });
  });

  test('the stamp moves with the text, not with status or label writes', async () => {
    const store = await open('dagstore-stamp');
    await store.write('a', TEXT);
    const stamp = (await store.stat('a'))!.stamp;
    await store.setSuspended('a', true);
    const dags = new CustomResources(loadKubeConfig(cluster().kubeconfig), store.namespace, 'dags');
    await dags.mergePatchStatus('a', { status: { nextRun: '2030-01-01T00:00:00Z', errors: [] } });
    await dags.mergePatch('a', { metadata: { labels: { team: 'x' } } });
    expect((await store.stat('a'))?.stamp).toBe(stamp);
    await store.write('a', `${TEXT}# one more comment\n`);
    const commented = (await store.stat('a'))!.stamp;
    expect(commented).not.toBe(stamp);
    await dags.mergePatch('a', { spec: { description: 'kubectl edit' } });
    expect((await store.stat('a'))?.stamp).not.toBe(commented);
    await store.delete('a');
    await store.write('a', TEXT);
    expect((await store.stat('a'))?.stamp).not.toBe(stamp);
  });

  test('a text too large for the annotations is refused with a clear bad_request', async () => {
    const store = await open('dagstore-large');
    const big = `# ${'x'.repeat(260 * 1024)}\nsteps:\n  - command: echo\n`;
    await expect(store.write('big', big)).rejects.toMatchObject({ code: 'bad_request', message: expect.stringContaining('256 KiB') });
    const fits = `# ${'x'.repeat(200 * 1024)}\nsteps:\n  - command: echo\n`;
    await store.write('fits', fits);
    expect((await store.read('fits'))?.text).toBe(fits);
  });

  test('the cache serves list, stat and suspend flags without a LIST, and sees other replicas\' writes', async () => {
    const other = await open('dagstore-watch');
    await other.write('mine', TEXT);
    const unsynced = new KubeDagStore(loadKubeConfig(cluster().kubeconfig), other.namespace, { cache: true });
    opened.push(unsynced);
    expect((await unsynced.list()).files.map((f) => f.fileName)).toEqual(['mine']);
    await new KubeDagStore(loadKubeConfig(cluster().kubeconfig), other.namespace, { cache: true }).close();
    const store = await replica(other.namespace, { cache: true });
    const lists = jest.spyOn(CustomResources.prototype, 'list');
    try {
      await other.write('theirs', TEXT);
      await other.setSuspended('theirs', true);
      await eventually('the other replica\'s Dag in the cache', async () => (await store.suspended()).has('theirs'));
      expect((await store.list()).files.map((f) => f.fileName)).toEqual(['mine', 'theirs']);
      expect(await store.stat('theirs')).toEqual(await other.stat('theirs'));
      await other.delete('theirs');
      await eventually('the deletion in the cache', async () => (await store.stat('theirs')) === undefined);
      expect(lists).not.toHaveBeenCalled();
    } finally {
      lists.mockRestore();
    }
    const many = Array.from({ length: 20 }, (_, i) => `bulk-${i}`);
    await Promise.all(many.map((n) => store.write(n, TEXT)));
    expect((await store.list()).files.map((f) => f.fileName)).toEqual([...many.sort(), 'mine']);
  });
});
