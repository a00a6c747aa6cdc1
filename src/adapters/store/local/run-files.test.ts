import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorruptFileError } from '../../fs/atomic.js';
import { RunFiles } from './run-files.js';

describe('RunFiles', () => {
  const base = mkdtempSync(join(tmpdir(), 'run-files-'));
  const root = join(base, 'runs');
  const run = join(root, 'd', 'r1');
  const outside = join(base, 'outside.json');
  mkdirSync(run, { recursive: true });
  writeFileSync(outside, '{"planted":true}');
  writeFileSync(join(run, 'spec.json'), '{"kind":"DagRun"}');
  symlinkSync(outside, join(run, 'link.json'));
  linkSync(outside, join(run, 'hard.json'));
  execFileSync('mkfifo', [join(run, 'fifo.json')]);
  symlinkSync(run, join(root, 'd', 'r2'));
  const files = new RunFiles(root);

  test('a file of ours is read whole, and its head', async () => {
    expect(await files.json(join(run, 'spec.json'))).toEqual({ kind: 'DagRun' });
    expect(files.head(join(run, 'spec.json'), 4)).toBe('{"ki');
    expect(files.exists(join(run, 'spec.json'))).toBe(true);
  });

  test.each(['link.json', 'hard.json', 'fifo.json', 'missing.json'])('%s reads as absent, without blocking', async (name) => {
    expect(await files.json(join(run, name))).toBeUndefined();
    expect(files.head(join(run, name), 8)).toBeUndefined();
    expect(files.exists(join(run, name))).toBe(false);
  });

  test('a linked run directory is not followed, and no write goes there', async () => {
    expect(await files.json(join(root, 'd', 'r2', 'spec.json'))).toBeUndefined();
    expect(files.dirsSafe(join(root, 'd', 'r2', 'stop'))).toBe(false);
    expect(files.dirsSafe(join(run, 'stop'))).toBe(true);
    expect(readFileSync(outside, 'utf8')).toBe('{"planted":true}');
  });

  test('bad JSON is corrupt, not absent', async () => {
    writeFileSync(join(run, 'bad.json'), '{');
    await expect(files.json(join(run, 'bad.json'))).rejects.toBeInstanceOf(CorruptFileError);
  });
});
