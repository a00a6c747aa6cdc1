/**
 * The DagStore conformance suite: every adapter runs it (DAG files, memory; Dag resources on
 * Kubernetes). Uses jest globals; imported by test files only.
 */
import type { DagStore } from '../../core/ports/dag-store.js';

export function dagStoreConformance(name: string, make: () => Promise<DagStore>): void {
  describe(`DagStore conformance: ${name}`, () => {
    let store: DagStore;
    beforeEach(async () => { store = await make(); });

    it('write, read as written, list, stat with a stamp that moves with the text, delete', async () => {
      expect(await store.list()).toEqual({ files: [], errors: [] });
      const text = '# kept as written\nsteps:\n  - name: a   # comment\n    command: echo hi\n';
      await store.write('a', text);
      const r = await store.read('a');
      expect(r).toMatchObject({ fileName: 'a', text });
      expect(Number.isNaN(Date.parse(r!.updatedAt))).toBe(false);
      expect(await store.stat('a')).toEqual({ fileName: 'a', stamp: r!.stamp, updatedAt: r!.updatedAt });
      await store.write('a', `${text}# changed\n`);
      expect((await store.read('a'))?.stamp).not.toBe(r?.stamp);
      await store.write('b_2', 'steps: []\n');
      expect((await store.list()).files.map((f) => f.fileName).sort()).toEqual(['a', 'b_2']);
      await store.delete('a');
      expect(await store.read('a')).toBeUndefined();
      expect(await store.stat('a')).toBeUndefined();
      await expect(store.delete('a')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('create-only refuses an existing DAG and keeps its text', async () => {
      await store.write('a', 'one', { createOnly: true });
      await expect(store.write('a', 'two', { createOnly: true })).rejects.toMatchObject({ code: 'already_exists' });
      expect((await store.read('a'))?.text).toBe('one');
    });

    it('concurrent create-only writes: exactly one wins', async () => {
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.write('race', `v${i}`, { createOnly: true })));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'already_exists' });
    });

    it('rename moves the text and the suspend flag, never overwrites', async () => {
      await store.write('a', 'A');
      await store.write('b', 'B');
      await store.setSuspended('a', true);
      await expect(store.rename('a', 'b')).rejects.toMatchObject({ code: 'already_exists' });
      expect((await store.read('b'))?.text).toBe('B');
      await store.rename('a', 'c');
      expect(await store.read('a')).toBeUndefined();
      expect((await store.read('c'))?.text).toBe('A');
      expect(await store.isSuspended('c')).toBe(true);
      expect(await store.isSuspended('a')).toBe(false);
      expect(await store.suspended()).toEqual(new Set(['c']));
      await expect(store.rename('zz', 'yy')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('suspend flags: set, clear, unknown DAG is not_found, delete clears the flag', async () => {
      await store.write('a', 'A');
      await expect(store.setSuspended('nope', true)).rejects.toMatchObject({ code: 'not_found' });
      await store.setSuspended('a', true);
      expect(await store.isSuspended('a')).toBe(true);
      await store.setSuspended('a', false);
      expect(await store.isSuspended('a')).toBe(false);
      await store.setSuspended('a', true);
      await store.delete('a');
      await store.write('a', 'A again');
      expect(await store.isSuspended('a')).toBe(false);
    });

    it.each(['../x', 'a/b', 'a\0b', '', '.', '..', 'a.b', 'x'.repeat(201), '%2e%2e'])('invalid fileName %j is refused (bad_request) everywhere', async (bad) => {
      await expect(store.read(bad)).rejects.toMatchObject({ code: 'bad_request' });
      await expect(store.write(bad, 'x')).rejects.toMatchObject({ code: 'bad_request' });
      await expect(store.setSuspended(bad, true)).rejects.toMatchObject({ code: 'bad_request' });
      await store.write('ok', 'x');
      await expect(store.rename('ok', bad)).rejects.toMatchObject({ code: 'bad_request' });
      expect((await store.list()).files.map((f) => f.fileName)).toEqual(['ok']);
    });
  });
}
