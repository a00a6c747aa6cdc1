import { NotFoundError } from '../../core/errors.js';
import type { DagFileInfo, DagFileText, DagStore } from '../../core/ports/dag-store.js';
import { StoreDagCatalog } from './dag-catalog.js';

/** An in-memory DagStore counting reads; stamps change on every write. */
class MemStore implements DagStore {
  files = new Map<string, { text: string; stamp: number }>();
  flags = new Set<string>();
  reads = 0;
  private n = 0;
  put(name: string, text: string) { this.files.set(name, { text, stamp: ++this.n }); }
  private info(fileName: string): DagFileInfo | undefined {
    const f = this.files.get(fileName);
    return f && { fileName, stamp: String(f.stamp), updatedAt: '2026-01-01T00:00:00.000Z' };
  }
  async list() { return { files: [...this.files.keys()].map((k) => this.info(k)!), errors: [] }; }
  async stat(fileName: string) { return this.info(fileName); }
  async read(fileName: string): Promise<DagFileText | undefined> {
    this.reads++;
    const i = this.info(fileName);
    if (fileName === 'unreadable') throw new Error('EACCES: permission denied');
    return i && { ...i, text: this.files.get(fileName)!.text, location: `/dags/${fileName}.yaml` };
  }
  async write(fileName: string, text: string) { this.put(fileName, text); }
  async delete(fileName: string) { if (!this.files.delete(fileName)) throw new NotFoundError('x'); }
  async rename() { throw new Error('unused'); }
  async isSuspended(fileName: string) { return this.flags.has(fileName); }
  async suspended() { return new Set(this.flags); }
  async setSuspended(fileName: string, s: boolean) { if (s) this.flags.add(fileName); else this.flags.delete(fileName); }
}

describe('StoreDagCatalog', () => {
  test('parses each file once until its stamp changes; deleted files leave the cache', async () => {
    const store = new MemStore();
    store.put('a', 'steps:\n  - command: echo a\n');
    store.put('b', 'name: bee\nsteps:\n  - command: echo b\n');
    const cat = new StoreDagCatalog(store);
    const first = await cat.list();
    expect(first.entries.map((e) => [e.fileName, e.loaded.definition.name, e.loaded.sourceFile])).toEqual([['a', 'a', '/dags/a.yaml'], ['b', 'bee', '/dags/b.yaml']]);
    await cat.list();
    await cat.get('a');
    expect(store.reads).toBe(2);
    store.put('a', 'description: new\nsteps:\n  - command: echo a\n');
    expect((await cat.get('a')).loaded.definition.description).toBe('new');
    expect(store.reads).toBe(3);
    store.files.delete('b');
    expect((await cat.list()).entries.map((e) => e.fileName)).toEqual(['a']);
    await expect(cat.get('b')).rejects.toBeInstanceOf(NotFoundError);
  });

  test('concurrent cold loads of a file share one read', async () => {
    const store = new MemStore();
    store.put('a', 'steps: []\n');
    const cat = new StoreDagCatalog(store);
    await Promise.all([cat.list(), cat.list(), cat.get('a'), cat.get('a')]);
    expect(store.reads).toBe(1);
  });

  test('suspended flags, broken YAML and unreadable files', async () => {
    const store = new MemStore();
    store.put('ok', 'steps:\n  - command: echo\n');
    store.put('broken', 'steps: [\n');
    store.put('unreadable', 'steps: []\n');
    store.flags.add('ok');
    const cat = new StoreDagCatalog(store);
    const { entries, errors } = await cat.list();
    const by = Object.fromEntries(entries.map((e) => [e.fileName, e]));
    expect(by.ok).toMatchObject({ suspended: true, unreadable: false, loaded: { errors: [] } });
    expect(by.broken).toMatchObject({ suspended: false, unreadable: true, text: 'steps: [\n' });
    expect(by.unreadable).toMatchObject({ unreadable: true, text: '', loaded: { definition: { name: 'unreadable' } } });
    expect(errors).toEqual([expect.stringMatching(/^broken: yaml/), expect.stringMatching(/^unreadable: cannot read DAG file: EACCES/)]);
  });
});
