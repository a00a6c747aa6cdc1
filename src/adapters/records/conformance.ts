/**
 * The RecordCollection conformance suite: every adapter runs it (a JSON file, a file per record,
 * memory, a Kubernetes Secret). Uses jest globals; imported by test files only.
 */
import type { RecordCollection } from '../../core/ports/records.js';

export interface Rec {
  key: string;
  value: number;
  note?: string;
}

export interface RecordsFixture {
  /** A new, empty collection. */
  open(): Promise<RecordCollection<Rec>>;
  /** Another instance over the same stored records (a restarted server). */
  reopen(): Promise<RecordCollection<Rec>>;
}

const sorted = (all: Rec[]) => [...all].sort((a, b) => a.key.localeCompare(b.key));
const add = (r: Rec) => (all: Rec[]) => ({ next: [...all, r], result: r.key });

export function recordsConformance(name: string, make: () => Promise<RecordsFixture>): void {
  describe(`RecordCollection conformance: ${name}`, () => {
    let f: RecordsFixture;
    let c: RecordCollection<Rec>;
    beforeEach(async () => { f = await make(); c = await f.open(); });

    it('starts empty; update stores what change returns and gives its result', async () => {
      expect(await c.all()).toEqual([]);
      expect(await c.update(add({ key: 'b', value: 1 }))).toBe('b');
      await c.update(add({ key: 'a', value: 2, note: 'x' }));
      expect(sorted(await c.all())).toEqual([{ key: 'a', value: 2, note: 'x' }, { key: 'b', value: 1 }]);
      expect(c.size()).toBe(2);
    });

    it('survives a new instance; removals and changes too', async () => {
      await c.update(add({ key: 'a', value: 1 }));
      await c.update(add({ key: 'b', value: 2 }));
      await c.update((all) => ({ next: all.filter((r) => r.key !== 'a').map((r) => ({ ...r, value: 3 })), result: undefined }));
      const again = await f.reopen();
      expect(await again.all()).toEqual([{ key: 'b', value: 3 }]);
    });

    it('a change that throws stores nothing, and the error comes back', async () => {
      await c.update(add({ key: 'a', value: 1 }));
      await expect(c.update(() => { throw new Error('refused'); })).rejects.toThrow('refused');
      expect(await c.all()).toEqual([{ key: 'a', value: 1 }]);
      expect(await (await f.reopen()).all()).toEqual([{ key: 'a', value: 1 }]);
    });

    it('records handed out, and handed to change, are copies', async () => {
      await c.update(add({ key: 'a', value: 1 }));
      (await c.all())[0]!.value = 99;
      await expect(c.update((all) => { all[0]!.value = 42; throw new Error('refused'); })).rejects.toThrow('refused');
      expect(await c.all()).toEqual([{ key: 'a', value: 1 }]);
      const kept: Rec = { key: 'k', value: 5 };
      await c.update((all) => ({ next: [...all, kept], result: undefined }));
      kept.value = 77;
      expect((await c.all()).find((r) => r.key === 'k')!.value).toBe(5);
    });

    it('concurrent updates of one instance apply one after the other: none is lost', async () => {
      await c.update(add({ key: 'n', value: 0 }));
      await Promise.all(Array.from({ length: 20 }, () => c.update((all) => ({ next: all.map((r) => ({ ...r, value: r.value + 1 })), result: undefined }))));
      expect((await c.all())[0]!.value).toBe(20);
      expect((await (await f.reopen()).all())[0]!.value).toBe(20);
    });
  });
}
