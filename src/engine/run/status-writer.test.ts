import type { DagRunResource, DagRunStatus } from '../../core/resources.js';
import { ConflictError } from '../../core/errors.js';
import type { EngineDeps } from '../deps.js';
import { StatusWriter, statusSpacingMs } from './status-writer.js';

/** A store of one run: compare-and-swap on its version, each write released by the test. */
class OneRunStore {
  run: DagRunResource;
  writes: DagRunStatus[] = [];
  gates: (() => void)[] = [];
  fail: Error | undefined;

  constructor(status: DagRunStatus) {
    this.run = { metadata: { resourceVersion: '1' }, spec: { dagName: 'd', dagRunId: 'r' }, status } as unknown as DagRunResource;
  }

  async get(): Promise<DagRunResource> { return this.run; }

  async updateStatus(_k: unknown, rv: string, status: DagRunStatus): Promise<DagRunResource> {
    await new Promise<void>((r) => this.gates.push(r));
    if (this.fail) throw this.fail;
    if (rv !== this.run.metadata.resourceVersion) throw new ConflictError('moved');
    this.writes.push(status);
    this.run = { ...this.run, metadata: { resourceVersion: String(Number(rv) + 1) }, status } as DagRunResource;
    return this.run;
  }

  release(): void { this.gates.splice(0).forEach((g) => g()); }
}

const st = (n: number): DagRunStatus => ({ n } as unknown as DagRunStatus);
const tick = () => new Promise((r) => setImmediate(r));
const clock = { now: () => Date.now() };

test('states are written in order, one at a time; a state replaced before its turn is skipped; onChange follows each save', async () => {
  const store = new OneRunStore(st(0));
  const changed: unknown[] = [];
  const deps = { store, clock, statusIntervalMs: 0, onChange: (r: DagRunResource) => changed.push(r.status) } as unknown as EngineDeps;
  const w = new StatusWriter(deps, store.run);
  w.put(st(1));
  await tick();
  w.put(st(2));
  w.put(st(3));
  expect(changed).toEqual([]);
  for (let i = 0; i < 3; i++) { store.release(); await tick(); }
  const saved = await w.flush();
  expect(store.writes).toEqual([st(1), st(3)]);
  expect(changed).toEqual([st(1), st(3)]);
  expect(saved.status).toEqual(st(3));
});

test('a conflict re-reads the run and applies the same status; a failed write is thrown by flush and by the next put', async () => {
  const store = new OneRunStore(st(0));
  const w = new StatusWriter({ store, clock, statusIntervalMs: 0 } as unknown as EngineDeps, store.run);
  store.run = { ...store.run, metadata: { resourceVersion: '5' } } as DagRunResource;
  w.put(st(1));
  const first = w.flush();
  for (let i = 0; i < 6; i++) { store.release(); await tick(); }
  expect((await first).metadata.resourceVersion).toBe('6');
  store.fail = new Error('disk full');
  w.put(st(2));
  const second = expect(w.flush()).rejects.toThrow('disk full');
  for (let i = 0; i < 3; i++) { store.release(); await tick(); }
  await second;
  expect(() => w.put(st(3))).toThrow('disk full');
});

test('writes are spaced by statusIntervalMs: states put meanwhile coalesce into one write; flush does not wait', async () => {
  const store = new OneRunStore(st(0));
  const w = new StatusWriter({ store, clock, statusIntervalMs: 60_000 } as unknown as EngineDeps, store.run);
  w.put(st(1));
  await tick(); await tick();
  store.release();
  await tick();
  expect(store.writes).toEqual([st(1)]);
  w.put(st(2));
  w.put(st(3));
  for (let i = 0; i < 5; i++) { store.release(); await tick(); }
  // The interval (a minute) has not passed: nothing more is written until a flush.
  expect(store.writes).toEqual([st(1)]);
  const flushed = w.flush();
  for (let i = 0; i < 5; i++) { store.release(); await tick(); }
  expect((await flushed).status).toEqual(st(3));
  expect(store.writes).toEqual([st(1), st(3)]);
});

test('a slow write spaces the next one by 20 times its duration when that is longer than the interval; flush does not wait', async () => {
  const store = new OneRunStore(st(0));
  const w = new StatusWriter({ store, clock, statusIntervalMs: 1 } as unknown as EngineDeps, store.run);
  w.put(st(1));
  await tick(); await tick();
  await new Promise((r) => setTimeout(r, 30));
  store.release();
  await tick();
  expect(store.writes).toEqual([st(1)]);
  w.put(st(2));
  const deadline = performance.now() + 150;
  while (performance.now() < deadline) { store.release(); await new Promise((r) => setTimeout(r, 5)); }
  // The last write took >= 30 ms, so the next one waits 500 ms (20 x 30, capped).
  expect(store.writes).toEqual([st(1)]);
  const flushed = w.flush();
  for (let i = 0; i < 5; i++) { store.release(); await tick(); }
  expect((await flushed).status).toEqual(st(2));
});

test('a failure at the very start of a write (a broken clock) is thrown by flush, never waited on forever', async () => {
  const store = new OneRunStore(st(0));
  const broken = { now: () => { throw new Error('no clock'); } };
  const w = new StatusWriter({ store, clock: broken, statusIntervalMs: 0 } as unknown as EngineDeps, store.run);
  w.put(st(1));
  await expect(w.flush()).rejects.toThrow('no clock');
});

test('the spacing: the interval, or 20 times the last write up to 500 ms; an interval of 0 turns it off', () => {
  expect(statusSpacingMs(50, 1)).toBe(50);
  expect(statusSpacingMs(50, 4)).toBe(80);
  expect(statusSpacingMs(50, 2000)).toBe(500);
  expect(statusSpacingMs(1000, 2000)).toBe(1000);
  expect(statusSpacingMs(0, 30)).toBe(0);
});
