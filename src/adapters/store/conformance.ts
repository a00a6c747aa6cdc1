/**
 * The RunStore conformance suite: every RunStore adapter (local files, Kubernetes custom resources)
 * runs it, so the engine can rely on one behaviour. Call it from the adapter's test file:
 *
 *   runStoreConformance('LocalRunStore', async () => new LocalRunStore({ dataDir: await tmp() }));
 *
 * makeStore must return a store over fresh, empty storage for each test.
 * Uses jest globals (describe/it/expect); imported by test files only.
 */
import { AlreadyExistsError, BadRequestError, ConflictError, NotFoundError } from '../../core/errors.js';
import type { RunKey, RunStore } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import { API_VERSION } from '../../core/resources.js';
import { RunStatus } from '../../core/run/status.js';
import { runListConformance } from './conformance-list.js';
import { makeRun } from './run-fixture.js';
import { runKeyOf } from '../../core/ports/run-store.js';

export { makeRun, type RunFixture } from './run-fixture.js';

const ids = (rs: DagRunResource[]): string[] => rs.map((r) => `${r.spec.dagName}/${r.spec.dagRunId}`);

export function runStoreConformance(name: string, makeStore: () => Promise<RunStore>): void {
  describe(`RunStore conformance: ${name}`, () => {
    let store: RunStore;
    beforeEach(async () => { store = await makeStore(); });

    describe('create and get', () => {
      it('round-trips spec and status and fills server fields', async () => {
        const run = makeRun({ labels: { team: 'x' } });
        const created = await store.create(run);
        expect(created.apiVersion).toBe(API_VERSION);
        expect(created.kind).toBe('DagRun');
        expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
        expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
        expect(Number.isNaN(Date.parse(created.metadata.creationTimestamp))).toBe(false);
        expect(created.metadata.name).toBe(run.metadata.name);
        expect(created.metadata.labels).toEqual(run.metadata.labels);
        expect(created.metadata.labels.team).toBe('x');
        expect(created.spec).toEqual(run.spec);
        expect(created.status).toEqual(run.status);
        expect(await store.get(runKeyOf(run))).toEqual(created);
      });

      it('keeps a given creationTimestamp', async () => {
        const ts = '2023-05-06T07:08:09.000Z';
        const created = await store.create(makeRun({ creationTimestamp: ts }));
        expect(created.metadata.creationTimestamp).toBe(ts);
      });

      it('returns undefined for a missing run', async () => {
        expect(await store.get({ dagName: 'hello', dagRunId: 'nope' })).toBeUndefined();
      });

      it('rejects a second create of the same run id with AlreadyExistsError', async () => {
        await store.create(makeRun());
        await expect(store.create(makeRun())).rejects.toBeInstanceOf(AlreadyExistsError);
      });

      it('lets the same run id exist under two DAG names', async () => {
        await store.create(makeRun({ dagName: 'one' }));
        await expect(store.create(makeRun({ dagName: 'two' }))).resolves.toBeDefined();
      });
    });

    describe('updateStatus (compare-and-swap)', () => {
      it('replaces the status and moves the resourceVersion forward', async () => {
        const created = await store.create(makeRun());
        const next = { ...created.status, run: { ...created.status.run, status: RunStatus.Running } };
        const updated = await store.updateStatus(runKeyOf(created), created.metadata.resourceVersion, next);
        expect(updated.status).toEqual(next);
        expect(updated.spec).toEqual(created.spec);
        expect(updated.metadata.uid).toBe(created.metadata.uid);
        expect(BigInt(updated.metadata.resourceVersion)).toBeGreaterThan(BigInt(created.metadata.resourceVersion));
        expect(await store.get(runKeyOf(created))).toEqual(updated);
      });

      it('rejects a stale resourceVersion with ConflictError and keeps the stored status', async () => {
        const created = await store.create(makeRun());
        const v1 = await store.updateStatus(runKeyOf(created), created.metadata.resourceVersion, created.status);
        const stale = { ...created.status, attemptId: 'stale' };
        await expect(store.updateStatus(runKeyOf(created), created.metadata.resourceVersion, stale))
          .rejects.toBeInstanceOf(ConflictError);
        expect((await store.get(runKeyOf(created)))?.metadata.resourceVersion).toBe(v1.metadata.resourceVersion);
        expect((await store.get(runKeyOf(created)))?.status.attemptId).toBe('att-1');
      });

      it('lets exactly one of two concurrent updates with the same version win', async () => {
        const created = await store.create(makeRun());
        const rv = created.metadata.resourceVersion;
        const results = await Promise.allSettled(['x', 'y'].map((a) =>
          store.updateStatus(runKeyOf(created), rv, { ...created.status, attemptId: a })));
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]!.reason).toBeInstanceOf(ConflictError);
        const winner = (won[0] as PromiseFulfilledResult<DagRunResource>).value;
        expect(await store.get(runKeyOf(created))).toEqual(winner);
      });

      it('throws NotFoundError for a missing run', async () => {
        await expect(store.updateStatus({ dagName: 'hello', dagRunId: 'nope' }, '1', makeRun().status))
          .rejects.toBeInstanceOf(NotFoundError);
      });
    });

    describe('list', () => {
      beforeEach(async () => {
        await store.create(makeRun({ dagName: 'a', dagRunId: 'r1', creationTimestamp: '2024-01-01T00:00:01.000Z' }));
        await store.create(makeRun({ dagName: 'b', dagRunId: 'r2', creationTimestamp: '2024-01-01T00:00:03.000Z' }));
        await store.create(makeRun({ dagName: 'a', dagRunId: 'r3', creationTimestamp: '2024-01-01T00:00:02.000Z' }));
        await store.create(makeRun({ dagName: 'a', dagRunId: 'r4', creationTimestamp: '2024-01-01T00:00:02.000Z' }));
        await store.create(makeRun({
          dagName: 'child', dagRunId: 'c1', creationTimestamp: '2024-01-01T00:00:04.000Z',
          parent: { name: 'a', dagRunId: 'r1' },
        }));
      });

      it('returns all runs newest first, ties broken by run id (descending)', async () => {
        expect(ids(await store.list())).toEqual(['child/c1', 'b/r2', 'a/r4', 'a/r3', 'a/r1']);
      });

      it('filters by DAG name', async () => {
        expect(ids(await store.list({ dagName: 'a' }))).toEqual(['a/r4', 'a/r3', 'a/r1']);
        expect(await store.list({ dagName: 'none' })).toEqual([]);
      });

      it('keeps root runs only (no spec.parent) with rootOnly', async () => {
        expect(ids(await store.list({ rootOnly: true }))).toEqual(['b/r2', 'a/r4', 'a/r3', 'a/r1']);
        expect(ids(await store.list({ dagName: 'child', rootOnly: true }))).toEqual([]);
      });

      it('returns what get returns', async () => {
        const [first] = await store.list({ dagName: 'b' });
        expect(first).toEqual(await store.get({ dagName: 'b', dagRunId: 'r2' }));
      });

      it('with limit, returns the newest that pass the other filters, as the full list would', async () => {
        expect(ids(await store.list({ dagName: 'a', limit: 2 }))).toEqual(['a/r4', 'a/r3']);
        expect(ids(await store.list({ rootOnly: true, limit: 1 }))).toEqual(['b/r2']);
        expect(ids(await store.list({ limit: 3 }))).toEqual(['child/c1', 'b/r2', 'a/r4']);
        expect(ids(await store.list({ dagName: 'a', limit: 10 }))).toEqual(['a/r4', 'a/r3', 'a/r1']);
        expect(await store.list({ limit: 0 })).toEqual([]);
        const [first] = await store.list({ dagName: 'b', limit: 1 });
        expect(first).toEqual(await store.get({ dagName: 'b', dagRunId: 'r2' }));
      });

      it('with writtenBefore, leaves out runs whose status was written after that time', async () => {
        await new Promise((r) => setTimeout(r, 20));
        const between = Date.now();
        await new Promise((r) => setTimeout(r, 20));
        const r3 = (await store.get({ dagName: 'a', dagRunId: 'r3' }))!;
        await store.updateStatus(runKeyOf(r3), r3.metadata.resourceVersion, { ...r3.status, attemptId: 'again' });
        expect(ids(await store.list({ dagName: 'a', writtenBefore: between }))).toEqual(['a/r4', 'a/r1']);
        expect(ids(await store.list({ writtenBefore: Date.now() + 1000 }))).toEqual(['child/c1', 'b/r2', 'a/r4', 'a/r3', 'a/r1']);
      });
    });

    runListConformance(() => store);

    describe('delete', () => {
      it('removes the run so get, list and create see it gone', async () => {
        const created = await store.create(makeRun());
        await store.delete(runKeyOf(created));
        expect(await store.get(runKeyOf(created))).toBeUndefined();
        expect(await store.list()).toEqual([]);
        const again = await store.create(makeRun());
        expect(again.metadata.uid).not.toBe(created.metadata.uid);
      });

      it('rejects an update with a version of the deleted run after re-create', async () => {
        const created = await store.create(makeRun());
        await store.delete(runKeyOf(created));
        await store.create(makeRun());
        await expect(store.updateStatus(runKeyOf(created), created.metadata.resourceVersion, created.status))
          .rejects.toBeInstanceOf(ConflictError);
      });

      it('is a no-op for a missing run', async () => {
        await expect(store.delete({ dagName: 'hello', dagRunId: 'nope' })).resolves.toBeUndefined();
      });
    });

    describe('stop requests', () => {
      it('records a stop request without touching the status version', async () => {
        const created = await store.create(makeRun());
        expect(await store.isStopRequested(runKeyOf(created))).toBe(false);
        await store.requestStop(runKeyOf(created));
        expect(await store.isStopRequested(runKeyOf(created))).toBe(true);
        await store.requestStop(runKeyOf(created)); // idempotent
        expect(await store.isStopRequested(runKeyOf(created))).toBe(true);
        // The driver's CAS on status is not disturbed by the stop request.
        await expect(store.updateStatus(runKeyOf(created), created.metadata.resourceVersion, created.status)).resolves.toBeDefined();
      });

      it('is false for a missing run and requestStop on it throws NotFoundError', async () => {
        const key = { dagName: 'hello', dagRunId: 'nope' };
        expect(await store.isStopRequested(key)).toBe(false);
        await expect(store.requestStop(key)).rejects.toBeInstanceOf(NotFoundError);
      });

      it('is cleared by delete', async () => {
        const created = await store.create(makeRun());
        await store.requestStop(runKeyOf(created));
        await store.delete(runKeyOf(created));
        await store.create(makeRun());
        expect(await store.isStopRequested(runKeyOf(created))).toBe(false);
      });
    });

    describe('invalid names', () => {
      const bad: Array<[string, RunKey]> = [
        ['dag name ../x', { dagName: '../x', dagRunId: 'r1' }],
        ['dag name a/b', { dagName: 'a/b', dagRunId: 'r1' }],
        ['dag name ..', { dagName: '..', dagRunId: 'r1' }],
        ['empty dag name', { dagName: '', dagRunId: 'r1' }],
        ['too long dag name', { dagName: 'd'.repeat(41), dagRunId: 'r1' }],
        ['run id ../x', { dagName: 'hello', dagRunId: '../x' }],
        ['run id a/b', { dagName: 'hello', dagRunId: 'a/b' }],
        ['run id ..', { dagName: 'hello', dagRunId: '..' }],
        ['empty run id', { dagName: 'hello', dagRunId: '' }],
        ['too long run id', { dagName: 'hello', dagRunId: 'r'.repeat(65) }],
      ];
      it.each(bad)('rejects %s with BadRequestError everywhere', async (_label, key) => {
        const run = makeRun();
        run.spec.dagName = key.dagName;
        run.spec.dagRunId = key.dagRunId;
        await expect(store.create(run)).rejects.toBeInstanceOf(BadRequestError);
        await expect(store.get(key)).rejects.toBeInstanceOf(BadRequestError);
        await expect(store.updateStatus(key, '1', run.status)).rejects.toBeInstanceOf(BadRequestError);
        await expect(store.delete(key)).rejects.toBeInstanceOf(BadRequestError);
        await expect(store.requestStop(key)).rejects.toBeInstanceOf(BadRequestError);
        await expect(store.isStopRequested(key)).rejects.toBeInstanceOf(BadRequestError);
        expect(await store.list()).toEqual([]);
      });

      it.each(['../x', 'a/b', '', 'd'.repeat(41)])('rejects list({ dagName: %j }) with BadRequestError', async (dagName) => {
        await expect(store.list({ dagName })).rejects.toBeInstanceOf(BadRequestError);
      });
    });
  });
}
