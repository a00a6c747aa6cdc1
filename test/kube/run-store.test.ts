/**
 * KubeRunStore on the test bed's real API server: the RunStore conformance suite, with and without the
 * watch-fed cache, then what is Kubernetes' own: printer columns, several API replicas, the cache, the
 * status budget.
 */
import { jest } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { CustomResources } from '../../src/adapters/kube/client.js';
import { DAG_RUN_PLURAL, DagRunApi } from '../../src/adapters/kube/run-api.js';
import type { DagRunObject } from '../../src/adapters/kube/run-mapping.js';
import { KubeRunStore, type KubeRunStoreOptions } from '../../src/adapters/kube/run-store.js';
import { makeRun, runStoreConformance } from '../../src/adapters/store/conformance.js';
import type { RunChange } from '../../src/adapters/kube/run-store.js';
import { BadRequestError, ConflictError } from '../../src/core/errors.js';
import { runKeyOf } from '../../src/core/ports/run-store.js';
import { NodeStatus, RunStatus } from '../../src/core/run/status.js';
import { eventually, kubectl } from '../testbed/helpers.js';
import { deleteNamespace, describeCluster, kubeFixture } from './env.js';

const namespaces: string[] = [];
const stores: KubeRunStore[] = [];

async function fixture(): Promise<{ namespace: string; kc: KubeConfig }> {
  const f = await kubeFixture('runs');
  namespaces.push(f.namespace);
  return f;
}

function open(kc: KubeConfig, namespace: string, opts: KubeRunStoreOptions = {}): KubeRunStore {
  const store = new KubeRunStore(kc, namespace, opts);
  stores.push(store);
  return store;
}

async function synced(kc: KubeConfig, namespace: string, opts: KubeRunStoreOptions = {}): Promise<KubeRunStore> {
  const store = open(kc, namespace, { cache: true, ...opts });
  expect(await store.whenSynced()).toBe(true);
  return store;
}

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await Promise.all(namespaces.splice(0).map((ns) => deleteNamespace(ns)));
});

describeCluster('KubeRunStore', () => {
  runStoreConformance('KubeRunStore', async () => {
    const { namespace, kc } = await fixture();
    return open(kc, namespace);
  });

  runStoreConformance('KubeRunStore with the watch cache', async () => {
    const { namespace, kc } = await fixture();
    return synced(kc, namespace);
  });

  test('kubectl get dagruns shows the phase and the steps done after a status write', async () => {
    const { namespace, kc } = await fixture();
    const store = open(kc, namespace);
    const created = await store.create(makeRun({ dagName: 'nightly', dagRunId: 'r1' }));
    const run = structuredClone(created.status.run);
    run.status = RunStatus.Running;
    run.nodes[0]!.status = NodeStatus.Succeeded;
    await store.updateStatus(runKeyOf(created), created.metadata.resourceVersion, { ...created.status, run });
    const table = await kubectl(['get', 'dagruns', '-n', namespace]);
    expect(table.stdout.split('\n')[0]).toMatch(/NAME\s+DAG\s+STATUS\s+STEPS/);
    expect(table.stdout).toMatch(new RegExp(`${created.metadata.name}\\s+nightly\\s+running\\s+1/2`));
    const raw = JSON.parse((await kubectl(['get', 'dagrun', created.metadata.name, '-n', namespace, '-o', 'json'])).stdout);
    expect(raw.metadata.labels).toEqual(created.metadata.labels);
    expect(Date.parse(raw.status.writtenAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  test('a second instance (another API replica) sees the first one\'s writes, and CAS holds between them', async () => {
    const { namespace, kc } = await fixture();
    const one = open(kc, namespace);
    const two = await synced(kc, namespace);
    const created = await one.create(makeRun());
    expect(await two.get(runKeyOf(created))).toEqual(created);
    const updated = await two.updateStatus(runKeyOf(created), created.metadata.resourceVersion, { ...created.status, attemptId: 'two' });
    await expect(one.updateStatus(runKeyOf(created), created.metadata.resourceVersion, { ...created.status, attemptId: 'one' }))
      .rejects.toBeInstanceOf(ConflictError);
    expect(await one.get(runKeyOf(created))).toEqual(updated);
    await one.requestStop(runKeyOf(created));
    expect(await two.isStopRequested(runKeyOf(created))).toBe(true);
    await eventually('the cached list to show the write of the other instance', async () =>
      (await two.list())[0]?.status.attemptId === 'two');
    await one.delete(runKeyOf(created));
    await eventually('the cached list to drop the run the other instance deleted', async () => (await two.list()).length === 0);
  });

  test('the cached list sees a run created by another instance within a short time, without LISTing the API', async () => {
    const { namespace, kc } = await fixture();
    const cached = await synced(kc, namespace);
    const other = open(kc, namespace);
    const lists = jest.spyOn(DagRunApi.prototype, 'list');
    try {
      const t0 = Date.now();
      await other.create(makeRun({ dagRunId: 'elsewhere' }));
      const found = await eventually('the other instance\'s run in the cached list', async () => {
        const runs = await cached.list();
        return runs.length === 1 ? runs : undefined;
      }, 5000);
      expect(found[0]!.spec.dagRunId).toBe('elsewhere');
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(lists).not.toHaveBeenCalled();
    } finally {
      lists.mockRestore();
    }
  });

  test('slimFinished (the operator): a finished run stays listed without its snapshot and node records; listeners see it whole', async () => {
    const { namespace, kc } = await fixture();
    const slim = await synced(kc, namespace, { cache: { slimFinished: true } });
    const seen: RunChange[] = [];
    const unsubscribe = slim.subscribe((c) => seen.push(c));
    const created = await slim.create(makeRun({ dagRunId: 'done' }));
    await slim.create(makeRun({ dagRunId: 'active' }));
    const run = structuredClone(created.status.run);
    run.status = RunStatus.Succeeded;
    run.nodes[0]!.status = NodeStatus.Succeeded;
    await slim.updateStatus(runKeyOf(created), created.metadata.resourceVersion, { ...created.status, run });
    const listed = await eventually('the finished run in the cached list', async () => {
      const runs = await slim.list();
      const done = runs.find((r) => r.spec.dagRunId === 'done');
      return done?.status.run.status === RunStatus.Succeeded ? runs : undefined;
    }, 5000);
    const done = listed.find((r) => r.spec.dagRunId === 'done')!;
    expect(done.status.run.nodes).toEqual([]);
    expect(done.spec.definition.steps).toEqual([]);
    expect(done.spec.definition.name).toBe('hello');
    expect(listed.find((r) => r.spec.dagRunId === 'active')!.status.run.nodes).toHaveLength(2);
    // Whole where it matters: the change events, and get().
    const event = seen.find((c): c is Extract<RunChange, { run: unknown }> => 'run' in c && c.run.spec.dagRunId === 'done' && c.run.status.run.status === RunStatus.Succeeded);
    expect(event?.run.status.run.nodes).toHaveLength(2);
    expect((await slim.get(runKeyOf(created)))!.status.run.nodes).toHaveLength(2);
    unsubscribe();
  });

  runStoreConformance('KubeRunStore with the unfinished-only cache (the operator)', async () => {
    const { namespace, kc } = await fixture();
    return synced(kc, namespace, { cache: { slimFinished: true, unfinishedOnly: true } });
  });

  test('unfinishedOnly (the operator): a run that ends leaves memory; listeners see its end; lists of it read the API', async () => {
    const { namespace, kc } = await fixture();
    const store = await synced(kc, namespace, { cache: { slimFinished: true, unfinishedOnly: true } });
    const cached = (): string[] => ((store as unknown as { cache: { informer: { list(): DagRunObject[] } } }).cache.informer.list()).map((o) => o.spec!.dagRunId).sort();
    const seen: RunChange[] = [];
    const unsubscribe = store.subscribe((c) => seen.push(c));
    const created = await store.create(makeRun({ dagRunId: 'done' }));
    await store.create(makeRun({ dagRunId: 'active' }));
    await eventually('both runs in the cache', async () => cached().length === 2 || undefined, 5000);
    const run = structuredClone(created.status.run);
    run.status = RunStatus.Succeeded;
    run.nodes[0]!.status = NodeStatus.Succeeded;
    await store.updateStatus(runKeyOf(created), created.metadata.resourceVersion, { ...created.status, run });
    await eventually('the finished run to leave the cache', async () => (cached().join() === 'active') || undefined, 5000);
    // Its end reaches listeners as an update of the whole run, not as a deletion.
    const end = await eventually('the end event', async () => seen.find((c): c is Extract<RunChange, { run: unknown }> => c.type === 'update' && c.run.spec.dagRunId === 'done' && c.run.status.run.status === RunStatus.Succeeded), 5000);
    expect(end.run.status.run.nodes).toHaveLength(2);
    expect(seen.filter((c) => c.type === 'delete')).toEqual([]);
    // Unfinished statuses come from memory; anything else from the API, whole.
    const lists = jest.spyOn(DagRunApi.prototype, 'list');
    expect((await store.list({ status: RunStatus.NotStarted })).map((r) => r.spec.dagRunId)).toEqual(['active']);
    expect(lists).not.toHaveBeenCalled();
    expect((await store.list({ status: RunStatus.Succeeded })).map((r) => r.spec.dagRunId)).toEqual(['done']);
    expect((await store.list()).map((r) => r.spec.dagRunId).sort()).toEqual(['active', 'done']);
    expect(lists).toHaveBeenCalledTimes(2);
    lists.mockRestore();
    // A write to a run that had already finished makes no event: a list right after does not wait for one.
    const done = (await store.get(runKeyOf(created)))!;
    await store.updateStatus(runKeyOf(created), done.metadata.resourceVersion, { ...done.status, run: { ...done.status.run, error: 'noted after' } });
    const t0 = Date.now();
    await store.list({ status: RunStatus.Running });
    expect(Date.now() - t0).toBeLessThan(1500);
    unsubscribe();
  });

  test('a cache that is closed (or not yet synced) gives way to a LIST of the API', async () => {
    const { namespace, kc } = await fixture();
    const store = await synced(kc, namespace);
    await store.create(makeRun());
    await store.close();
    const early = open(kc, namespace, { cache: true });
    await early.close(); // before its first LIST is even answered: no watch is left open
    const lists = jest.spyOn(DagRunApi.prototype, 'list');
    try {
      expect((await store.list()).map((r) => r.spec.dagRunId)).toEqual(['r1']);
      expect((await early.list()).map((r) => r.spec.dagRunId)).toEqual(['r1']);
      expect(lists).toHaveBeenCalledTimes(2);
    } finally {
      lists.mockRestore();
    }
  });

  test('a cache whose LIST failed answers through the API meanwhile, and syncs on its own after a pause', async () => {
    const { namespace, kc } = await fixture();
    await open(kc, namespace).create(makeRun());
    const lists = jest.spyOn(DagRunApi.prototype, 'list').mockRejectedValueOnce(new Error('the API is away'));
    try {
      const store = open(kc, namespace, { cache: true });
      expect((await store.list()).map((r) => r.spec.dagRunId)).toEqual(['r1']);
      expect(await store.whenSynced(10_000)).toBe(true);
      const before = lists.mock.calls.length;
      expect((await store.list()).map((r) => r.spec.dagRunId)).toEqual(['r1']);
      expect(lists.mock.calls.length).toBe(before);
    } finally {
      lists.mockRestore();
    }
  });

  test('a status over the budget is refused with its size and the limit, and nothing is written', async () => {
    const { namespace, kc } = await fixture();
    const store = open(kc, namespace, { maxStatusBytes: 64 * 1024 });
    const big = makeRun({ dagRunId: 'big' });
    big.status.run.outputs = { BIG: 'x'.repeat(70 * 1024) };
    await expect(store.create(big)).rejects.toThrow(/is \d+ bytes of JSON, over the 65536-byte limit/);
    expect(await store.get(runKeyOf(big))).toBeUndefined();
    const created = await store.create(makeRun());
    const status = structuredClone(created.status);
    status.run.outputs = { BIG: 'x'.repeat(70 * 1024) };
    const write = store.updateStatus(runKeyOf(created), created.metadata.resourceVersion, status);
    await expect(write).rejects.toBeInstanceOf(BadRequestError);
    expect(await store.get(runKeyOf(created))).toEqual(created);
  });

  test('the default budget is 1 MiB', async () => {
    const { namespace, kc } = await fixture();
    const store = open(kc, namespace);
    const big = makeRun();
    big.status.run.outputs = { BIG: 'x'.repeat(1024 * 1024) };
    await expect(store.create(big)).rejects.toThrow(/over the 1048576-byte limit/);
  });

  test('create() writes the status even when a controller patched the new object first', async () => {
    const { namespace, kc } = await fixture();
    const store = open(kc, namespace);
    const create = CustomResources.prototype.create;
    const patchedFirst = jest.spyOn(CustomResources.prototype, 'create').mockImplementation(async function (this: CustomResources<DagRunObject>, obj) {
      const o = await create.call(this, obj);
      await this.mergePatch(o.metadata.name, { metadata: { labels: { controller: 'was-here' } } });
      return o; // its resourceVersion is already stale
    });
    try {
      const created = await store.create(makeRun());
      expect(created.metadata.labels.controller).toBe('was-here');
      expect(await store.get(runKeyOf(created))).toEqual(created);
    } finally {
      patchedFirst.mockRestore();
    }
  });
});
