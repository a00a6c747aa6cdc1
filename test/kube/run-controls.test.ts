/**
 * KubeRunControls on the test bed's real API server: approval requests kept in the DagRun's
 * spec.controls, written with compare-and-swap, and hidden from the run store's resource.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { CustomResources } from '../../src/adapters/kube/client.js';
import { DAG_RUN_PLURAL } from '../../src/adapters/kube/run-api.js';
import { nextId, KubeRunControls } from '../../src/adapters/kube/run-controls.js';
import type { DagRunObject } from '../../src/adapters/kube/run-mapping.js';
import { KubeRunStore } from '../../src/adapters/kube/run-store.js';
import { makeRun } from '../../src/adapters/store/conformance.js';
import { NotFoundError } from '../../src/core/errors.js';
import type { ControlObservation } from '../../src/core/ports/run-controls.js';
import { runKeyOf, type RunKey } from '../../src/core/ports/run-store.js';
import { kubectl } from '../testbed/helpers.js';
import { deleteNamespace, describeCluster, kubeFixture } from './env.js';

const namespaces: string[] = [];

afterAll(async () => {
  await Promise.all(namespaces.splice(0).map((ns) => deleteNamespace(ns)));
});

interface Bed { namespace: string; kc: KubeConfig; store: KubeRunStore; controls: KubeRunControls; key: RunKey; name: string }

/** A fresh namespace with one run in it. */
async function bed(): Promise<Bed> {
  const { namespace, kc } = await kubeFixture('controls');
  namespaces.push(namespace);
  const store = new KubeRunStore(kc, namespace);
  const created = await store.create(makeRun({ dagName: 'gated', dagRunId: 'r1' }));
  return { namespace, kc, store, controls: new KubeRunControls(kc, namespace), key: runKeyOf(created), name: created.metadata.name };
}

const approve = (node: string, inputs: Record<string, string> = {}): ControlObservation => ({ type: 'approve', node, inputs });

describe('nextId', () => {
  test('ids sort in list order, also when the previous id is from a clock ahead of this one', () => {
    const a = nextId(undefined, 1_000);
    const b = nextId(a, 1_000);
    const c = nextId(b, 500);
    const d = nextId(c, 2_000);
    expect([a, b, c, d]).toEqual([a, b, c, d].sort());
    expect(new Set([a, b, c, d]).size).toBe(4);
    expect(nextId('set by hand', 7)).toMatch(/^0{9}7-0000-[0-9a-f]{8}$/);
  });
});

describeCluster('KubeRunControls', () => {
  test('push to a run that does not exist is NotFoundError; pending of it is empty and ack a no-op', async () => {
    const { controls } = await bed();
    const missing = { dagName: 'gated', dagRunId: 'nope' };
    await expect(controls.push(missing, approve('a'))).rejects.toBeInstanceOf(NotFoundError);
    expect(await controls.pending(missing)).toEqual([]);
    await controls.ack(missing, ['x']);
  });

  test('pending gives the requests in arrival order with their observations until acknowledged', async () => {
    const { controls, key, kc, namespace } = await bed();
    expect(await controls.pending(key)).toEqual([]);
    const a = await controls.push(key, approve('a', { X: '1' }));
    const b = await controls.push(key, { type: 'reject', node: 'b', reason: 'no' });
    expect(a.id < b.id).toBe(true);
    expect(await controls.pending(key)).toEqual([
      { id: a.id, observation: { type: 'approve', node: 'a', inputs: { X: '1' } } },
      { id: b.id, observation: { type: 'reject', node: 'b', reason: 'no' } },
    ]);
    expect(await new KubeRunControls(kc, namespace).pending(key)).toEqual([a, b]); // another replica
    await controls.ack(key, [a.id]);
    expect(await controls.pending(key)).toEqual([b]);
    await controls.ack(key, [b.id]);
    expect(await controls.pending(key)).toEqual([]);
  });

  test('ack of unknown ids writes nothing', async () => {
    const { controls, key, kc, namespace, name } = await bed();
    const a = await controls.push(key, approve('a'));
    const runs = new CustomResources<DagRunObject>(kc, namespace, DAG_RUN_PLURAL);
    const before = (await runs.get(name))!.metadata.resourceVersion;
    await controls.ack(key, ['0000000000-0000-00000000', 'not-an-id']);
    expect((await runs.get(name))!.metadata.resourceVersion).toBe(before);
    expect(await controls.pending(key)).toEqual([a]);
    await controls.ack(key, []);
    expect(await controls.pending(key)).toEqual([a]);
  });

  test('concurrent pushes from two instances all land (compare-and-swap, retried on conflict)', async () => {
    const { controls, key, kc, namespace } = await bed();
    const other = new KubeRunControls(kc, namespace);
    const pushed = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other : controls).push(key, approve(`n${i}`))));
    const pending = await controls.pending(key);
    expect(pending).toHaveLength(10);
    expect(new Set(pending.map((r) => r.id))).toEqual(new Set(pushed.map((r) => r.id)));
    expect(pending.map((r) => r.observation.node).sort()).toEqual(pushed.map((r) => r.observation.node).sort());
    const ids = pending.map((r) => r.id);
    expect(ids).toEqual([...ids].sort());
    // Acks racing with pushes: nothing acknowledged comes back, nothing pushed is lost.
    const [, late] = await Promise.all([other.ack(key, ids.slice(0, 5)), controls.push(key, approve('late'))]);
    expect((await controls.pending(key)).map((r) => r.id)).toEqual([...ids.slice(5), late.id]);
  });

  test('a push bumps the generation (the operator wakes the driver) and leaves the run store\'s status CAS alone', async () => {
    const { controls, store, key, kc, namespace, name } = await bed();
    const runs = new CustomResources<DagRunObject>(kc, namespace, DAG_RUN_PLURAL);
    const generation = (await runs.get(name))!.metadata.generation!;
    const run = (await store.get(key))!;
    await controls.push(key, approve('a'));
    expect((await runs.get(name))!.metadata.generation).toBeGreaterThan(generation);
    // The driver's status write on the version it read still goes through (only spec moved).
    const written = await store.updateStatus(key, run.metadata.resourceVersion, { ...run.status, attemptId: 'att-2' });
    expect(written.status.attemptId).toBe('att-2');
    expect(await controls.pending(key)).toHaveLength(1);
  });

  test('the run store\'s resource does not show spec.controls; kubectl does', async () => {
    const { controls, store, key, namespace, name } = await bed();
    const spec = (await store.get(key))!.spec;
    const req = await controls.push(key, approve('a', { WHO: 'me' }));
    const run = (await store.get(key))!;
    expect(run.spec).toEqual(spec);
    expect(run.spec).not.toHaveProperty('controls');
    const raw = JSON.parse((await kubectl(['get', 'dagrun', name, '-n', namespace, '-o', 'json'])).stdout);
    expect(raw.spec.controls).toEqual([{ id: req.id, observation: { type: 'approve', node: 'a', inputs: { WHO: 'me' } } }]);
  });

  test('a request written by hand without an observation is refused by the schema', async () => {
    const { namespace, name } = await bed();
    const r = await kubectl(['patch', 'dagrun', name, '-n', namespace, '--type', 'merge', '-p', JSON.stringify({ spec: { controls: [{ id: 'x' }] } })]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/observation/);
  });
});
