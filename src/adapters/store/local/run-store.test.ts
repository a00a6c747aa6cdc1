import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BadRequestError, ConflictError } from '../../../core/errors.js';
import { CorruptFileError } from '../../fs/atomic.js';
import { makeRun, runStoreConformance } from '../conformance.js';
import { LocalRunStore } from './run-store.js';
import { dagRunName } from '../../../core/naming.js';

const dirs: string[] = [];
async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'svc-runstore-'));
  dirs.push(d);
  return d;
}
afterAll(async () => { await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))); });

runStoreConformance('LocalRunStore', async () => new LocalRunStore({ dataDir: join(await tmp(), 'data') }));

const key = { dagName: 'hello', dagRunId: 'r1' };

describe('LocalRunStore (local only)', () => {
  let root: string;
  let dataDir: string;
  let store: LocalRunStore;
  beforeEach(async () => {
    root = await tmp();
    dataDir = join(root, 'data');
    store = new LocalRunStore({ dataDir });
  });

  it('requires an absolute dataDir', () => {
    expect(() => new LocalRunStore({ dataDir: 'relative/dir' })).toThrow(/absolute/);
  });

  it('lays a run out as runs/<dag>/<id>/{spec.json,status.json,stop}', async () => {
    const created = await store.create(makeRun());
    const dir = store.runDir(key);
    expect(dir).toBe(join(dataDir, 'runs', 'hello', 'r1'));
    expect((await readdir(dir)).sort()).toEqual(['spec.json', 'status.json']);
    const spec = JSON.parse(await readFile(join(dir, 'spec.json'), 'utf8'));
    expect(spec.metadata.resourceVersion).toBeUndefined();
    expect(spec.metadata.uid).toBe(created.metadata.uid);
    const statusText = await readFile(join(dir, 'status.json'), 'utf8');
    expect(statusText.startsWith(`{"resourceVersion":"${created.metadata.resourceVersion}","uid":"`)).toBe(true);
    expect(statusText).not.toContain('\n');
    await store.requestStop(key);
    expect((await readdir(dir)).sort()).toEqual(['spec.json', 'status.json', 'stop']);
  });

  it('a run written with the old object name (<dag>.<id>) reads with the Kubernetes-valid name of a new run', async () => {
    const created = await store.create(makeRun());
    const file = join(store.runDir(key), 'spec.json');
    const spec = JSON.parse(await readFile(file, 'utf8'));
    spec.metadata = { ...spec.metadata, name: 'hello.r1', labels: { 'svc.io/dag': 'hello', mine: 'kept' }, annotations: {} };
    await writeFile(file, JSON.stringify(spec));
    const fresh = new LocalRunStore({ dataDir });
    const read = await fresh.get(key);
    expect(read?.metadata.name).toBe(created.metadata.name);
    expect(read?.metadata.name).toBe(dagRunName('hello', 'r1'));
    expect(read?.metadata.labels).toMatchObject({ ...created.metadata.labels, mine: 'kept' });
    expect(read?.metadata.annotations).toEqual({ 'svc.io/dag-name': 'hello', 'svc.io/dag-run-id': 'r1' });
    const [listed] = await fresh.list({ dagName: 'hello' });
    expect(listed?.metadata.name).toBe(dagRunName('hello', 'r1'));
    const updated = await fresh.updateStatus(key, read!.metadata.resourceVersion, read!.status);
    expect(updated.metadata.name).toBe(dagRunName('hello', 'r1'));
  });

  it('runDir rejects unsafe keys', () => {
    expect(() => store.runDir({ dagName: '..', dagRunId: 'x' })).toThrow(BadRequestError);
    expect(() => store.runDir({ dagName: 'a', dagRunId: '../../etc' })).toThrow(BadRequestError);
  });

  it('creates nothing outside dataDir for invalid names', async () => {
    for (const [dagName, dagRunId] of [['../x', 'r1'], ['a/b', 'r1'], ['hello', '../../x'], ['', 'r1'], ['hello', '']]) {
      const run = makeRun();
      run.spec.dagName = dagName!;
      run.spec.dagRunId = dagRunId!;
      await expect(store.create(run)).rejects.toBeInstanceOf(BadRequestError);
    }
    expect(await readdir(root)).toEqual([]);
  });

  it('a second instance on the same dir sees the writes of the first (cross-process stand-in)', async () => {
    const other = new LocalRunStore({ dataDir });
    const created = await store.create(makeRun());
    const fromOther = await other.get(key);
    expect(fromOther).toEqual(created);
    // The other "process" takes the run over and writes twice.
    const v1 = await other.updateStatus(key, created.metadata.resourceVersion, { ...created.status, attemptId: 'b1' });
    await other.updateStatus(key, v1.metadata.resourceVersion, { ...created.status, attemptId: 'b2' });
    // This instance's knowledge is stale: its CAS must fail, not overwrite.
    await expect(store.updateStatus(key, created.metadata.resourceVersion, created.status)).rejects.toBeInstanceOf(ConflictError);
    await expect(store.updateStatus(key, v1.metadata.resourceVersion, created.status)).rejects.toBeInstanceOf(ConflictError);
    const latest = await store.get(key);
    expect(latest?.status.attemptId).toBe('b2');
    const mine = await store.updateStatus(key, latest!.metadata.resourceVersion, { ...created.status, attemptId: 'a3' });
    expect((await other.get(key))?.status.attemptId).toBe('a3');
    expect(mine.metadata.resourceVersion).toBe((await other.get(key))?.metadata.resourceVersion);
    // Stop requests and deletes cross over too.
    await other.requestStop(key);
    expect(await store.isStopRequested(key)).toBe(true);
    await other.delete(key);
    expect(await store.get(key)).toBeUndefined();
  });

  it('notices a delete + re-create by another instance (fresh spec, old versions conflict)', async () => {
    const other = new LocalRunStore({ dataDir });
    const first = await store.create(makeRun());
    await store.updateStatus(key, first.metadata.resourceVersion, first.status); // fills the spec cache
    await other.delete(key);
    const run = makeRun();
    run.spec.params = 'B=2';
    const second = await other.create(run);
    const updated = await store.updateStatus(key, second.metadata.resourceVersion, second.status);
    expect(updated.spec.params).toBe('B=2');
    expect(updated.metadata.uid).toBe(second.metadata.uid);
  });

  it('gives a clear error naming the file for a corrupt status.json', async () => {
    const created = await store.create(makeRun());
    const file = join(store.runDir(key), 'status.json');
    await writeFile(file, '{"resourceVersion":"1","uid":"x","status":{');
    await expect(store.get(key)).rejects.toThrow(CorruptFileError);
    await expect(store.get(key)).rejects.toThrow(file);
    await expect(store.updateStatus(key, created.metadata.resourceVersion, created.status)).rejects.toThrow(file);
    await expect(store.list()).rejects.toThrow(file);
  });

  it('accepts a hand-formatted status.json (slow path of the version check)', async () => {
    const created = await store.create(makeRun());
    const file = join(store.runDir(key), 'status.json');
    await writeFile(file, JSON.stringify(JSON.parse(await readFile(file, 'utf8')), null, 2));
    const next = await store.updateStatus(key, created.metadata.resourceVersion, created.status);
    expect(next.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
  });

  it('skips a half-written run dir in list and get', async () => {
    await store.create(makeRun({ dagRunId: 'ok' }));
    await store.create(makeRun({ dagRunId: 'half' }));
    await unlink(join(store.runDir({ dagName: 'hello', dagRunId: 'half' }), 'spec.json'));
    await store.create(makeRun({ dagRunId: 'empty' }));
    await rm(store.runDir({ dagName: 'hello', dagRunId: 'empty' }), { recursive: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(store.runDir({ dagName: 'hello', dagRunId: 'empty' })));
    // Stray entries that are not runs: a file, and a directory with an unsafe name.
    await writeFile(join(dataDir, 'runs', 'hello', 'notes.txt'), 'x');
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dataDir, 'runs', 'hello', '.hidden..x')));
    expect((await store.list()).map((r) => r.spec.dagRunId)).toEqual(['ok']);
    expect(await store.get({ dagName: 'hello', dagRunId: 'half' })).toBeUndefined();
  });

  it('lists an empty or missing data directory as empty', async () => {
    expect(await store.list()).toEqual([]);
    expect(await store.list({ dagName: 'hello' })).toEqual([]);
  });

  it('returns a deep-frozen shared spec from updateStatus and mutable copies from get', async () => {
    const created = await store.create(makeRun());
    const updated = await store.updateStatus(key, created.metadata.resourceVersion, created.status);
    expect(Object.isFrozen(updated.spec.definition.steps)).toBe(true);
    const got = await store.get(key);
    got!.spec.params = 'changed';
    expect((await store.get(key))?.spec.params).toBe('A=1');
  });

  it('serialises many concurrent updates: exactly one winner per version, no lost writes', async () => {
    const created = await store.create(makeRun());
    let rv = created.metadata.resourceVersion;
    for (let round = 0; round < 5; round++) {
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) =>
        store.updateStatus(key, rv, { ...created.status, attemptId: `r${round}-${i}` })));
      const won = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof store.get>> & object> => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      rv = won[0]!.value.metadata.resourceVersion;
    }
    expect((await store.get(key))?.metadata.resourceVersion).toBe(rv);
    expect((await readdir(store.runDir(key))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
