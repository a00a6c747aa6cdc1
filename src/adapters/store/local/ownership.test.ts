import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalOwnership, type ProcessIdentity } from './ownership.js';

const key = { dagName: 'd', dagRunId: 'r1' };

function setup() {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-owner-'));
  mkdirSync(join(dataDir, 'runs', 'd', 'r1'), { recursive: true });
  const alive = new Set<number>([100, 200]);
  const as = (self: Partial<ProcessIdentity>) => new LocalOwnership({
    dataDir, self: { pid: 100, startTicks: '5', host: 'h1', instance: 'me', ...self }, isAlive: (pid) => alive.has(pid),
  });
  const file = join(dataDir, 'runs', 'd', 'r1', 'owner');
  return { dataDir, alive, as, file };
}

describe('LocalOwnership (a pid lock beside the run)', () => {
  test('acquire, state, holder, release', async () => {
    const { as, file } = setup();
    const me = as({});
    expect(await me.state(key)).toBe('none');
    expect(await me.holder(key)).toBeUndefined();
    expect(await me.acquire(key)).toBe(true);
    expect(await me.acquire(key)).toBe(true); // already mine
    expect(await me.state(key)).toBe('mine');
    expect(await me.holder(key)).toBe('process 100 on h1');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: 100, startTicks: '5', host: 'h1', instance: 'me' });
    await me.release(key);
    expect(await me.state(key)).toBe('none');
  });

  test.each([
    ['a live other process', { pid: 200, instance: 'other' }, 'live', false],
    ['a dead process on this host', { pid: 300, instance: 'other' }, 'gone', true],
    ['another host (never presumed gone)', { pid: 300, host: 'h2', instance: 'other' }, 'live', false],
    ['our pid, an earlier instance (a restarted container)', { pid: 100, instance: 'old' }, 'gone', true],
  ])('held by %s: seen %s, taken over: %s', async (_name, other, state, taken) => {
    const { as } = setup();
    expect(await as(other).acquire(key)).toBe(true);
    const me = as({});
    expect(await me.state(key)).toBe(state);
    expect(await me.acquire(key)).toBe(taken);
    expect(await me.state(key)).toBe(taken ? 'mine' : state);
    await me.release(key); // not ours unless taken: a no-op then
    expect(await me.state(key)).toBe(taken ? 'none' : state);
  });

  test('a record cut short by a crash counts as gone and is taken over', async () => {
    const { as, file } = setup();
    writeFileSync(file, '{"pid":3');
    expect(await as({}).state(key)).toBe('gone');
    expect(await as({}).acquire(key)).toBe(true);
  });

  test('many takers race for a free run, and for a run whose owner died: exactly one wins each time', async () => {
    const { as, alive } = setup();
    const takers = Array.from({ length: 8 }, (_, i) => as({ pid: 1000 + i, instance: `t${i}` }));
    for (let i = 0; i < 8; i++) alive.add(1000 + i);
    const first = await Promise.all(takers.map((t) => t.acquire(key)));
    expect(first.filter(Boolean)).toHaveLength(1);
    const winner = first.indexOf(true);
    alive.delete(1000 + winner);
    const second = await Promise.all(takers.map((t, i) => (i === winner ? Promise.resolve(false) : t.acquire(key))));
    expect(second.filter(Boolean)).toHaveLength(1);
  });

  test.each(['link', 'fifo'])('a %s planted at the lock is not followed: no owner is shown, a taker replaces it', async (kind) => {
    const { dataDir, as, file } = setup();
    const target = join(dataDir, 'target');
    writeFileSync(target, JSON.stringify({ pid: 200, host: 'h1', instance: 'other', startTicks: '1' }));
    if (kind === 'link') symlinkSync(target, file);
    else execFileSync('mkfifo', [file]);
    const me = as({});
    expect(await me.holder(key)).toBe('a process whose record is unreadable');
    expect(await me.state(key)).toBe('gone');
    expect(await me.acquire(key)).toBe(true);
    expect(lstatSync(file).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ instance: 'other' });
  });

  test('a link planted at the temporary name is not written through', async () => {
    const { dataDir, as, file } = setup();
    const target = join(dataDir, 'target');
    writeFileSync(target, 'untouched');
    symlinkSync(target, `${file}.me.tmp`);
    await expect(as({}).acquire(key)).rejects.toThrow();
    expect(readFileSync(target, 'utf8')).toBe('untouched');
  });
});
