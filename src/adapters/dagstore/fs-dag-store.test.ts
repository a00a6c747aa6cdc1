import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dagStoreConformance } from './conformance.js';
import { FsDagStore } from './fs-dag-store.js';
import { MemoryDagStore } from './memory-dag-store.js';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dagstore-'));
  const dagsDir = join(dir, 'dags');
  const dataDir = join(dir, 'data');
  return { dir, dagsDir, dataDir, store: new FsDagStore({ dagsDir, dataDir }) };
}

dagStoreConformance('FsDagStore', async () => setup().store);
dagStoreConformance('MemoryDagStore', async () => new MemoryDagStore());

describe('FsDagStore (files only)', () => {
  test('reads and lists the files of the directory; the location is the file', async () => {
    const { store, dagsDir } = setup();
    await store.write('a', 'steps: []\n');
    expect(await store.read('a')).toMatchObject({ fileName: 'a', location: join(dagsDir, 'a.yaml') });
  });


  test('.yml files are read; .yaml wins when both exist; writes keep the extension', async () => {
    const { store, dagsDir } = setup();
    mkdirSync(dagsDir, { recursive: true });
    writeFileSync(join(dagsDir, 'b.yml'), 'yml');
    writeFileSync(join(dagsDir, 'c.yml'), 'c-yml');
    writeFileSync(join(dagsDir, 'c.yaml'), 'c-yaml');
    writeFileSync(join(dagsDir, 'not a dag.yaml'), 'x');
    writeFileSync(join(dagsDir, 'readme.txt'), 'x');
    expect((await store.list()).files.map((f) => f.fileName)).toEqual(['b', 'c']);
    expect((await store.read('c'))?.text).toBe('c-yaml');
    await store.write('b', 'new');
    expect(readFileSync(join(dagsDir, 'b.yml'), 'utf8')).toBe('new');
    expect(existsSync(join(dagsDir, 'b.yaml'))).toBe(false);
  });

  test('create-only refuses an existing DAG (either extension) and leaves no temp file', async () => {
    const { store, dagsDir } = setup();
    await store.write('a', 'one', { createOnly: true });
    await expect(store.write('a', 'two', { createOnly: true })).rejects.toMatchObject({ code: 'already_exists' });
    writeFileSync(join(dagsDir, 'y.yml'), 'y');
    await expect(store.write('y', 'two', { createOnly: true })).rejects.toMatchObject({ code: 'already_exists' });
    expect((await store.read('a'))?.text).toBe('one');
    expect(readdirSync(dagsDir).sort()).toEqual(['a.yaml', 'y.yml']);
  });




  test.each(['../x', 'a/b', 'a\0b', '', '.', '..', 'a.b', 'x'.repeat(201), '%2e%2e'])('invalid fileName %j is refused before any path is touched', async (name) => {
    const { store, dir } = setup();
    await expect(store.read(name)).rejects.toMatchObject({ code: 'bad_request' });
    await expect(store.write(name, 'x')).rejects.toMatchObject({ code: 'bad_request' });
    await expect(store.setSuspended(name, true)).rejects.toMatchObject({ code: 'bad_request' });
    await store.write('ok', 'x');
    await expect(store.rename('ok', name)).rejects.toMatchObject({ code: 'bad_request' });
    expect(readdirSync(dir).sort()).toEqual(['dags']);
  });

  test('an oversize DAG file is refused on read', async () => {
    const { store } = setup();
    await store.write('big', 'x'.repeat(1024 * 1024 + 1));
    await expect(store.read('big')).rejects.toMatchObject({ code: 'bad_request' });
  });
});
