import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Appender } from './appender.js';

const openFds = (): number => readdirSync('/proc/self/fd').length;

describe('Appender', () => {
  test('appends in order, creating the file and its directory; a file removed meanwhile is created anew', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-append-'));
    const a = new Appender(dir);
    const f = join(dir, 'sub', 'run.log');
    a.append(f, 'one\n');
    a.append(f, 'two\n');
    expect(readFileSync(f, 'utf8')).toBe('one\ntwo\n');
    rmSync(join(dir, 'sub'), { recursive: true });
    a.append(f, 'three\n');
    expect(readFileSync(f, 'utf8')).toBe('three\n');
  });

  test('keeps at most `max` descriptors open, the least recently used closed first', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-append-'));
    const before = openFds();
    const a = new Appender(dir, 3);
    for (let i = 0; i < 10; i++) a.append(join(dir, `f${i}`), `${i}\n`);
    expect(openFds() - before).toBe(3);
    a.append(join(dir, 'f0'), 'again\n');
    expect(readFileSync(join(dir, 'f0'), 'utf8')).toBe('0\nagain\n');
    expect(openFds() - before).toBe(3);
  });

  test('never appends through a link planted at the file or at a directory on its way', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-append-'));
    const target = join(mkdtempSync(join(tmpdir(), 'svc-target-')), 'secret');
    writeFileSync(target, 'secret\n');
    const a = new Appender(dir);
    symlinkSync(target, join(dir, 'run.log'));
    expect(() => a.append(join(dir, 'run.log'), 'x\n')).toThrow(/a link/);
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(target, '..'), join(dir, 'logs'));
    expect(() => a.append(join(dir, 'logs', 'secret'), 'x\n')).toThrow(/a link/);
    expect(readFileSync(target, 'utf8')).toBe('secret\n');
  });
});
