import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonStateFile } from './json-state.js';

describe('JsonStateFile', () => {
  const base = mkdtempSync(join(tmpdir(), 'json-state-'));
  const fresh = (name: string): string => {
    const dir = join(base, name);
    mkdirSync(dir);
    return dir;
  };

  test('a missing file is absent; a saved one loads; nothing is reported', async () => {
    const seen: string[] = [];
    const f = new JsonStateFile<{ a: number }>(join(fresh('ok'), 'state.json'), (p) => seen.push(p));
    expect(await f.load()).toBeUndefined();
    await f.save({ a: 1 });
    expect(await f.load()).toEqual({ a: 1 });
    expect(seen).toEqual([]);
  });

  test('bad JSON is reported and kept aside on the next save', async () => {
    const dir = fresh('bad');
    writeFileSync(join(dir, 'state.json'), '{not json');
    const seen: string[] = [];
    const f = new JsonStateFile<{ a: number }>(join(dir, 'state.json'), (p) => seen.push(p));
    expect(await f.load()).toBeUndefined();
    expect(seen).toEqual([join(dir, 'state.json')]);
    await f.save({ a: 2 });
    const aside = readdirSync(dir).find((n) => n.startsWith('state.json.unreadable-'))!;
    expect(readFileSync(join(dir, aside), 'utf8')).toBe('{not json');
    expect(await f.load()).toEqual({ a: 2 });
  });

  test.each(['link', 'fifo'])('a planted %s is not followed, not waited on, and its target never written', async (kind) => {
    const dir = fresh(kind);
    const target = join(base, `${kind}-target.json`);
    writeFileSync(target, '{"a":99}');
    if (kind === 'link') symlinkSync(target, join(dir, 'state.json'));
    else execFileSync('mkfifo', [join(dir, 'state.json')]);
    const seen: string[] = [];
    const f = new JsonStateFile<{ a: number }>(join(dir, 'state.json'), (p) => seen.push(p));
    expect(await f.load()).toBeUndefined();
    expect(seen).toHaveLength(1);
    await f.save({ a: 3 });
    expect(readFileSync(target, 'utf8')).toBe('{"a":99}');
    expect(await f.load()).toEqual({ a: 3 });
  });
});
