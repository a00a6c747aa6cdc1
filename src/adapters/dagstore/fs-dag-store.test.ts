import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsDagStore } from './fs-dag-store.js';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dagstore-'));
  const dagsDir = join(dir, 'dags');
  const dataDir = join(dir, 'data');
  return { dir, dagsDir, dataDir, store: new FsDagStore({ dagsDir, dataDir }) };
}

describe('FsDagStore', () => {
  test('write, read, list with stamps, delete', async () => {
    const { store, dagsDir } = setup();
    expect(await store.list()).toEqual({ files: [], errors: [] });
    await store.write('a', 'steps: []\n');
    const r = await store.read('a');
    expect(r).toMatchObject({ fileName: 'a', text: 'steps: []\n', location: join(dagsDir, 'a.yaml') });
    await store.write('a', 'steps: [] # changed\n');
    const r2 = await store.read('a');
    expect(r2?.stamp).not.toBe(r?.stamp);
    expect((await store.list()).files.map((f) => f.fileName)).toEqual(['a']);
    await store.delete('a');
    expect(await store.read('a')).toBeUndefined();
    await expect(store.delete('a')).rejects.toMatchObject({ code: 'not_found' });
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

  test('concurrent create-only writes: exactly one wins', async () => {
    const { store } = setup();
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.write('race', `v${i}`, { createOnly: true })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'already_exists' });
  });

  test('rename moves the file and its suspend flag, never overwrites', async () => {
    const { store } = setup();
    await store.write('a', 'A');
    await store.write('b', 'B');
    await store.setSuspended('a', true);
    await expect(store.rename('a', 'b')).rejects.toMatchObject({ code: 'already_exists' });
    await store.rename('a', 'c');
    expect(await store.read('a')).toBeUndefined();
    expect((await store.read('c'))?.text).toBe('A');
    expect(await store.isSuspended('c')).toBe(true);
    expect(await store.isSuspended('a')).toBe(false);
    expect(await store.suspended()).toEqual(new Set(['c']));
    await expect(store.rename('zz', 'yy')).rejects.toMatchObject({ code: 'not_found' });
  });

  test('suspend flags: set, clear, unknown DAG is not_found, delete clears the flag', async () => {
    const { store } = setup();
    await store.write('a', 'A');
    await expect(store.setSuspended('nope', true)).rejects.toMatchObject({ code: 'not_found' });
    await store.setSuspended('a', true);
    expect(await store.isSuspended('a')).toBe(true);
    await store.setSuspended('a', false);
    expect(await store.isSuspended('a')).toBe(false);
    await store.setSuspended('a', true);
    await store.delete('a');
    await store.write('a', 'A again');
    expect(await store.isSuspended('a')).toBe(false);
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
