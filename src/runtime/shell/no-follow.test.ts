import { execFileSync } from 'node:child_process';
import { linkSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendOwnFileSync, readOwnFileSync } from './no-follow.js';
import { readExecRecord } from './records.js';

describe('exec records files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'no-follow-'));
  const target = join(dir, 'target');
  writeFileSync(target, 'k.0 {"pid":4242,"cmd":0}\n');
  symlinkSync(target, join(dir, 'link'));
  linkSync(target, join(dir, 'hard'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);

  test('an own file is appended to and read', () => {
    appendOwnFileSync(join(dir, 'own'), 'a 1\n');
    appendOwnFileSync(join(dir, 'own'), 'b 2\n');
    expect(readOwnFileSync(join(dir, 'own')).toString()).toBe('a 1\nb 2\n');
    expect(readOwnFileSync(join(dir, 'own'), 4).toString()).toBe('b 2\n');
  });

  test.each(['link', 'hard', 'fifo'])('a planted %s is neither appended to nor read, and never blocks', async (name) => {
    expect(() => appendOwnFileSync(join(dir, name), 'k.0 9\n')).toThrow();
    expect(() => readOwnFileSync(join(dir, name))).toThrow();
    expect(await readExecRecord(join(dir, name), 'k.0')).toBeUndefined();
    expect(readFileSync(target, 'utf8')).toBe('k.0 {"pid":4242,"cmd":0}\n');
  });
});
