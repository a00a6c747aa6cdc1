import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLocalFile } from './read-file.js';

describe('readLocalFile (a file probe of a local launcher)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-read-'));
  writeFileSync(join(dir, 'a.env'), 'A=1\nB=two words\n');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'big'), 'x'.repeat(101));

  test('the exact text of a regular file', async () => {
    expect(await readLocalFile(join(dir, 'a.env'), 100)).toBe('A=1\nB=two words\n');
  });

  test('undefined for a missing file or a directory (cat would fail; the next candidate is tried)', async () => {
    expect(await readLocalFile(join(dir, 'missing'), 100)).toBeUndefined();
    expect(await readLocalFile(join(dir, 'sub'), 100)).toBeUndefined();
  });

  test('a file over the limit is an error naming it, never a cut text', async () => {
    await expect(readLocalFile(join(dir, 'big'), 100)).rejects.toThrow(/big is 101 bytes, over the 100-byte limit/);
  });
});
