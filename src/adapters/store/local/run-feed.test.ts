/**
 * LocalRunFeed: changes saved by another LocalRunStore on the same data directory (as another process
 * would save them) reach subscribers; this process's own saves come through `local` once; finished
 * runs are not watched; the rescan catches what no watch reports; without inotify the rescan does it all.
 */
import { mkdtempSync, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dagRunMetadata } from '../../../core/naming.js';
import { runKeyOf } from '../../../core/ports/run-store.js';
import { API_VERSION, type DagRunResource } from '../../../core/resources.js';
import { newRunState } from '../../../core/run/state.js';
import { RunStatus } from '../../../core/run/status.js';
import { mkDag, mkStep } from '../../../core/run/testkit.js';
import { LocalRunFeed } from './run-feed.js';
import { LocalRunStore } from './run-store.js';

function makeRun(dagName: string, dagRunId: string, status = RunStatus.Running): DagRunResource {
  const definition = mkDag([mkStep('a'), mkStep('b', { depends: ['a'] })], { name: dagName });
  const root = { name: dagName, dagRunId };
  const run = newRunState(definition);
  run.status = status;
  return {
    apiVersion: API_VERSION, kind: 'DagRun',
    metadata: { ...dagRunMetadata({ dagName, dagRunId }, root), uid: '', resourceVersion: '', creationTimestamp: '' },
    spec: { dagName, dagRunId, definition, localDags: {}, params: '', trigger: 'manual', workingDir: '/tmp', root },
    status: { attemptId: 'att-1', queuedAt: '', run },
  };
}

async function setStatus(store: LocalRunStore, run: DagRunResource, status: RunStatus): Promise<DagRunResource> {
  const now = (await store.get(runKeyOf(run)))!;
  return store.updateStatus(runKeyOf(run), now.metadata.resourceVersion, { ...now.status, run: { ...now.status.run, status } });
}

const until = async (what: string, pred: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

let dataDir: string;
let other: LocalRunStore;
const feeds: LocalRunFeed[] = [];
const newFeed = (o: Partial<ConstructorParameters<typeof LocalRunFeed>[0]> = {}): LocalRunFeed => {
  const f = new LocalRunFeed({ dataDir, store: new LocalRunStore({ dataDir }), ...o });
  feeds.push(f);
  return f;
};

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-feed-'));
  other = new LocalRunStore({ dataDir });
});
afterEach(() => {
  for (const f of feeds.splice(0)) f.close();
});

test('the first scan records what is there and watches only unfinished runs; changes by another writer follow', async () => {
  const active = await other.create(makeRun('etl', 'r1'));
  await other.create(makeRun('etl', 'r2', RunStatus.Succeeded));
  await other.create(makeRun('report', 'r3', RunStatus.Failed));
  const feed = newFeed();
  const seen: DagRunResource[] = [];
  feed.subscribe((r) => seen.push(r));
  await feed.ready();
  expect(seen).toEqual([]);
  // runs/, two DAG directories, one unfinished run
  expect(feed.stats()).toEqual({ runs: 3, watches: 4, degraded: false });

  await setStatus(other, active, RunStatus.Succeeded);
  await until('the change of r1', () => seen.some((r) => r.spec.dagRunId === 'r1' && r.status.run.status === RunStatus.Succeeded));
  expect(feed.stats().watches).toBe(3);

  await other.create(makeRun('etl', 'r4', RunStatus.Queued));
  await until('the new run r4', () => seen.some((r) => r.spec.dagRunId === 'r4'));
  await other.create(makeRun('newdag', 'r5'));
  await until('the run of a new DAG', () => seen.some((r) => r.spec.dagRunId === 'r5'));
  const r4 = seen.find((r) => r.spec.dagRunId === 'r4')!;
  await setStatus(other, r4, RunStatus.Running);
  await until('r4 running', () => seen.some((r) => r.spec.dagRunId === 'r4' && r.status.run.status === RunStatus.Running));
  // Each state once, in version order.
  const versions = seen.filter((r) => r.spec.dagRunId === 'r4').map((r) => BigInt(r.metadata.resourceVersion));
  expect(versions).toEqual([...versions].sort((a, b) => (a < b ? -1 : 1)));
  expect(new Set(versions).size).toBe(versions.length);
});

test('this process\'s saves come through `local` at once, and are not delivered again when the file event follows', async () => {
  const listeners = new Set<(r: DagRunResource) => void>();
  const feed = newFeed({ local: (fn) => { listeners.add(fn); return () => listeners.delete(fn); } });
  const seen: DagRunResource[] = [];
  feed.subscribe((r) => seen.push(r));
  await feed.ready();
  const created = await other.create(makeRun('etl', 'r1'));
  for (const fn of listeners) fn(created);
  expect(seen.map((r) => r.metadata.resourceVersion)).toEqual([created.metadata.resourceVersion]);
  const updated = await setStatus(other, created, RunStatus.Succeeded);
  for (const fn of listeners) fn(updated);
  await new Promise((r) => setTimeout(r, 300));
  expect(seen.map((r) => r.metadata.resourceVersion)).toEqual([created.metadata.resourceVersion, updated.metadata.resourceVersion]);
});

test('a finished run changed again (a retry by another process) is caught by the rescan', async () => {
  const done = await other.create(makeRun('etl', 'r1', RunStatus.Failed));
  const feed = newFeed({ rescanMs: 100 });
  const seen: DagRunResource[] = [];
  feed.subscribe((r) => seen.push(r));
  await feed.ready();
  await setStatus(other, done, RunStatus.Queued);
  await until('the retried run', () => seen.some((r) => r.status.run.status === RunStatus.Queued));
});

test('without inotify (watches refused) the rescan delivers every change', async () => {
  const refuse = (): FSWatcher => { throw Object.assign(new Error('no watches left'), { code: 'ENOSPC' }); };
  const feed = newFeed({ watch: refuse, degradedRescanMs: 50 });
  const seen: DagRunResource[] = [];
  feed.subscribe((r) => seen.push(r));
  await feed.ready();
  expect(feed.stats()).toMatchObject({ watches: 0, degraded: true });
  const run = await other.create(makeRun('etl', 'r1'));
  await until('the new run', () => seen.some((r) => r.spec.dagRunId === 'r1'));
  await setStatus(other, run, RunStatus.Succeeded);
  await until('its change', () => seen.some((r) => r.status.run.status === RunStatus.Succeeded));
});

test('the watches go a while after the last subscriber left, and come back with the next', async () => {
  await other.create(makeRun('etl', 'r1'));
  const feed = newFeed({ lingerMs: 50 });
  const off = feed.subscribe(() => undefined);
  await feed.ready();
  expect(feed.stats().watches).toBe(3);
  off();
  await until('the watches closed', () => feed.stats().watches === 0);
  const seen: DagRunResource[] = [];
  feed.subscribe((r) => seen.push(r));
  await feed.ready();
  expect(feed.stats().watches).toBe(3);
  await setStatus(other, (await other.get({ dagName: 'etl', dagRunId: 'r1' }))!, RunStatus.Aborted);
  await until('the change', () => seen.length === 1);
});
