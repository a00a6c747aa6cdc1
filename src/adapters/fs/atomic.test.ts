import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorruptFileError, readHead, readJson, writeFileAtomic } from './atomic.js';

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'svc-atomic-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

describe('writeFileAtomic', () => {
  it('creates missing directories and writes the content', async () => {
    const p = join(dir, 'a', 'b', 'f.json');
    await writeFileAtomic(p, '{"x":1}');
    expect(await readFile(p, 'utf8')).toBe('{"x":1}');
  });

  it('does not create directories with mkdir: false', async () => {
    await expect(writeFileAtomic(join(dir, 'missing', 'f'), 'x', { mkdir: false })).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('leaves no temp file behind when the rename fails', async () => {
    const target = join(dir, 'target');
    await mkdir(join(target, 'child'), { recursive: true }); // rename over a non-empty directory fails
    await expect(writeFileAtomic(target, 'x')).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['target']);
  });

  it('never lets a reader see a partial file while writers race', async () => {
    const p = join(dir, 'f.json');
    const payload = (n: number): string => JSON.stringify({ n, pad: 'x'.repeat(200_000) });
    await writeFileAtomic(p, payload(0));
    let stop = false;
    const seen = new Set<number>();
    const reader = (async () => {
      while (!stop) {
        const v = await readJson<{ n: number; pad: string }>(p); // throws CorruptFileError on a torn read
        expect(v?.pad.length).toBe(200_000);
        seen.add(v!.n);
      }
    })();
    await Promise.all(Array.from({ length: 20 }, (_, i) => writeFileAtomic(p, payload(i + 1))));
    stop = true;
    await reader;
    expect(seen.size).toBeGreaterThan(0);
    expect((await readdir(dir)).filter((f) => f !== 'f.json')).toEqual([]);
  });
});

describe('readJson', () => {
  it('returns undefined for a missing file or directory', async () => {
    expect(await readJson(join(dir, 'nope.json'))).toBeUndefined();
    expect(await readJson(join(dir, 'no', 'such', 'dir.json'))).toBeUndefined();
  });

  it('throws a CorruptFileError naming the path for invalid JSON', async () => {
    const p = join(dir, 'bad.json');
    await writeFile(p, '{"a":');
    await expect(readJson(p)).rejects.toBeInstanceOf(CorruptFileError);
    await expect(readJson(p)).rejects.toThrow(`Corrupt JSON file ${p}`);
  });
});

describe('readHead', () => {
  it('returns the first bytes, the whole of a short file, or undefined', async () => {
    const p = join(dir, 'f');
    await writeFile(p, 'abcdef');
    expect(await readHead(p, 3)).toBe('abc');
    expect(await readHead(p, 100)).toBe('abcdef');
    expect(await readHead(join(dir, 'nope'), 3)).toBeUndefined();
  });
});

describe('writeFileAtomic and links', () => {
  it('replaces a link planted at the target instead of writing through it', async () => {
    const outside = join(dir, 'outside');
    await writeFile(outside, 'keep');
    const { symlink, lstat } = await import('node:fs/promises');
    const p = join(dir, 'state.json');
    await symlink(outside, p);
    await writeFileAtomic(p, 'new');
    expect(await readFile(outside, 'utf8')).toBe('keep');
    expect((await lstat(p)).isFile()).toBe(true);
    expect(await readFile(p, 'utf8')).toBe('new');
  });
});
