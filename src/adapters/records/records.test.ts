/** Every RecordCollection adapter passes the conformance suite; the file layouts skip what they cannot trust. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordsConformance, type Rec } from './conformance.js';
import { FileDirRecords } from './file-dir-records.js';
import { FileRecords, shapeCheck } from './file-records.js';
import { MemoryRecords } from './memory-records.js';

const isRec = shapeCheck<Rec>({ key: 'string', value: 'number' }, { note: 'string' });
const tmp = () => mkdtempSync(join(tmpdir(), 'svc-records-'));
const dirLayout = { key: (r: Rec) => r.key, validKey: (k: string) => /^[a-z0-9]+$/.test(k), valid: isRec };

recordsConformance('MemoryRecords', async () => {
  const c = new MemoryRecords<Rec>();
  return { open: async () => c, reopen: async () => c };
});

recordsConformance('FileRecords (one JSON file)', async () => {
  const path = join(tmp(), 'auth', 'recs.json');
  return { open: async () => new FileRecords(path, isRec), reopen: async () => new FileRecords(path, isRec) };
});

recordsConformance('FileDirRecords (a file per record)', async () => {
  const dir = join(tmp(), 'recs');
  return { open: async () => new FileDirRecords(dir, dirLayout), reopen: async () => new FileDirRecords(dir, dirLayout) };
});

describe('file layouts', () => {
  test('FileRecords reports and keeps records of the wrong shape, and reads a missing file as empty', async () => {
    const dir = tmp();
    const bad = [{ key: 'b' }, 'x', null];
    writeFileSync(join(dir, 'r.json'), JSON.stringify([{ key: 'a', value: 1 }, ...bad]));
    const problems: string[] = [];
    const c = new FileRecords(join(dir, 'r.json'), isRec, (m) => problems.push(m));
    expect(await c.all()).toEqual([{ key: 'a', value: 1 }]);
    expect(problems).toHaveLength(3);
    await c.update((all) => ({ next: [...all, { key: 'c', value: 3 }], result: undefined }));
    expect(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'))).toEqual([{ key: 'a', value: 1 }, { key: 'c', value: 3 }, ...bad]);
    expect(await new FileRecords(join(dir, 'none.json'), isRec).all()).toEqual([]);
  });

  test('FileRecords refuses to read or write over a file that is not a JSON array', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'r.json'), '{"key": "a"}');
    const c = new FileRecords(join(dir, 'r.json'), isRec);
    await expect(c.all()).rejects.toThrow(/not a JSON array/);
    await expect(c.update(() => ({ next: [], result: undefined }))).rejects.toThrow(/not a JSON array/);
    expect(readFileSync(join(dir, 'r.json'), 'utf8')).toBe('{"key": "a"}');
  });

  test('FileDirRecords: torn, foreign, mismatched and oddly named files are skipped, and left alone', async () => {
    const dir = join(tmp(), 'recs');
    await new FileDirRecords(dir, dirLayout).update(() => ({ next: [{ key: 'ok', value: 1 }], result: undefined }));
    writeFileSync(join(dir, 'torn.json'), '{"key": ');
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ key: 'ok', value: 2 }));
    writeFileSync(join(dir, 'partial.json'), JSON.stringify({ key: 'partial' }));
    writeFileSync(join(dir, 'Bad.Name.json'), JSON.stringify({ key: 'Bad.Name', value: 3 }));
    writeFileSync(join(dir, 'README'), 'x');
    const c = new FileDirRecords(dir, dirLayout);
    expect(await c.all()).toEqual([{ key: 'ok', value: 1 }]);
    expect(readdirSync(dir)).toHaveLength(6);
    await expect(c.update((all) => ({ next: [...all, { key: '../x', value: 0 }], result: undefined }))).rejects.toThrow(/invalid/);
    await expect(c.update((all) => ({ next: [...all, ...all], result: undefined }))).rejects.toThrow(/repeated/);
    await expect(c.update((all) => ({ next: [...all, { key: 'partial', value: 1 }], result: undefined }))).rejects.toMatchObject({ code: 'conflict' });
    await expect(c.update((all) => ({ next: [...all, { key: 'torn', value: 1 }], result: undefined }))).rejects.toThrow(/cannot be read/);
    expect(readdirSync(dir)).toHaveLength(6);
    expect(readFileSync(join(dir, 'torn.json'), 'utf8')).toBe('{"key": ');
  });
});
