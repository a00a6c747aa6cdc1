/**
 * Queues (SPEC 3.3, 2.2 maxActiveRuns/queue; reference 9): FIFO, concurrency, named queues, overrides.
 * Each run marks its start and then holds until the test releases it, so what the scheduler may do next
 * is decided by the test, never by how fast this machine happens to be.
 *
 * The race this replaced (issue 20, item 12; commit 0b9d123): each step used to `sleep 0.3` between a
 * "start" and an "end" line in one events log, and the tests read order and overlap off that log. The log
 * timed the shells, not the queue's decisions. (1) Runs that one queue pass starts together (pa1 and pa2
 * under a limit of 2) write their "start" lines in whatever order their shells get a CPU, yet the named
 * queue case expected the exact order pa1, pa2, pa3, pb1, ... (2) "The first three starts are t1-t3" and
 * "more than one run at a time" assumed every shell starts within 0.3 s of its launch: on 2 cores loaded
 * by the whole suite, one shell could be held back longer than another run's whole life, so t4's line
 * came before t2's, or no two runs overlapped. Alone the machine is idle and it passed; in the full suite
 * it failed about once in ten runs. The queue's decisions were not at fault (the fix changed only this
 * file): runs now hold until released, started runs are read as a set of marker files, and a limit is
 * checked as "exactly these have started, and no other within 300 ms", one release at a time in FIFO order.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, runsServer, waitRun } from './helpers.js';

const srv = runsServer();
const events = () => join(srv.dir, 'events.log');
const startedDir = () => join(srv.dir, 'started');
const releaseDir = () => join(srv.dir, 'release');
/** Marks the start, holds until released (at most 60 s: a broken test must not hang), logs the end. */
const step = (extra = '') => `${extra}steps:\n  - name: s\n    command: >-\n      echo "start $DAG_NAME $DAG_RUN_ID" >> ${events()}; touch ${startedDir()}/$DAG_RUN_ID;
      n=0; while [ ! -f ${releaseDir()}/$DAG_RUN_ID ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done;
      echo "end $DAG_NAME $DAG_RUN_ID" >> ${events()}\n`;

interface Run { dag: string; id: string }
const runs = (dag: string, ids: string[]): Run[] => ids.map((id) => ({ dag, id }));

const started = (of: Run[]): string[] => {
  const all = new Set(readdirSync(startedDir()));
  return of.filter((r) => all.has(r.id)).map((r) => r.id).sort();
};
const release = (r: Run): void => writeFileSync(join(releaseDir(), r.id), '');
const sorted = (ids: string[]): string[] => [...ids].sort();

/** Exactly these runs (of `of`) have started, and no other starts while the scheduler has time to err. */
async function expectStarted(of: Run[], want: Run[]): Promise<void> {
  const ids = sorted(want.map((r) => r.id));
  await eventually(async () => JSON.stringify(started(of)) === JSON.stringify(ids) || undefined, `exactly ${ids.join(', ')} to have started`);
  await new Promise((r) => setTimeout(r, 300));
  expect(started(of)).toEqual(ids);
}

/**
 * The runs, enqueued in this order, under a limit: the first `limit` start; each time the oldest running
 * one is released, the next in FIFO order starts, and never more than `limit` run at once.
 */
async function expectFifo(order: Run[], limit: number): Promise<void> {
  let next = Math.min(limit, order.length);
  await expectStarted(order, order.slice(0, next));
  for (const r of order) {
    release(r);
    await waitRun(srv, r.dag, r.id, 'succeeded');
    next = Math.min(next + 1, order.length);
    await expectStarted(order, order.slice(0, next));
  }
}

beforeAll(async () => {
  const config = join(srv.dir, 'config.yaml');
  writeFileSync(config, 'queues:\n  - name: pool\n    maxActiveRuns: 2\n');
  (srv.env as Record<string, string>).SVC_CONFIG = config;
  writeFileSync(events(), '');
  mkdirSync(startedDir());
  mkdirSync(releaseDir());
  srv.dag('one', step());
  srv.dag('three', step('maxActiveRuns: 3\n'));
  srv.dag('unlimited', step('maxActiveRuns: -1\n'));
  srv.dag('pooled-a', step('queue: pool\nmaxActiveRuns: 5\n'));
  srv.dag('pooled-b', step('queue: pool\n'));
  await srv.start();
});
afterAll(() => srv.stop());

async function enqueueAll(file: string, ids: string[], extra: Record<string, unknown> = {}) {
  for (const id of ids) expect((await srv.post(`/dags/${file}/enqueue`, { dagRunId: id, ...extra })).status).toBe(200);
}

test('per-DAG queue, maxActiveRuns 1: FIFO, one at a time, every run once', async () => {
  const ids = ['o1', 'o2', 'o3', 'o4'];
  await enqueueAll('one', ids);
  await expectFifo(runs('one', ids), 1);
});

test('per-DAG queue, maxActiveRuns 3: at most three at a time, started in FIFO order', async () => {
  const ids = Array.from({ length: 6 }, (_, i) => `t${i + 1}`);
  await enqueueAll('three', ids);
  await expectFifo(runs('three', ids), 3);
});

test('maxActiveRuns -1: no limit', async () => {
  const ids = ['u1', 'u2', 'u3', 'u4'];
  await enqueueAll('unlimited', ids);
  await expectFifo(runs('unlimited', ids), ids.length);
});

test('a named global queue (config queues) caps the DAGs that share it, whatever their maxActiveRuns', async () => {
  await enqueueAll('pooled-a', ['pa1', 'pa2', 'pa3']);
  await enqueueAll('pooled-b', ['pb1', 'pb2']);
  await expectFifo([...runs('pooled-a', ['pa1', 'pa2', 'pa3']), ...runs('pooled-b', ['pb1', 'pb2'])], 2);
});

test('queue override on enqueue puts a DAG into a named queue', async () => {
  const ids = ['ov1', 'ov2', 'ov3'];
  await enqueueAll('unlimited', ids, { queue: 'pool' });
  await expectFifo(runs('unlimited', ids), 2);
});

test('dagName override: the run is queued and limited under the new name', async () => {
  const ids = ['dn1', 'dn2', 'dn3', 'dn4'];
  await enqueueAll('three', ids, { dagName: 'renamed' });
  await expectFifo(runs('renamed', ids), 3);
  expect((await srv.get('/dag-runs?name=renamed')).body.dagRuns).toHaveLength(4);
});

test('queued runs keep queuedAt; a run started directly counts against the DAG queue', async () => {
  expect((await srv.post('/dags/one/start', { dagRunId: 'direct' })).status).toBe(200);
  await expectStarted(runs('one', ['direct']), runs('one', ['direct']));
  await srv.post('/dags/one/enqueue', { dagRunId: 'behind' });
  const behind = (await srv.get('/dag-runs/one/behind')).body.dagRun;
  expect(behind.statusLabel).toBe('queued');
  const queuedAt = behind.queuedAt;
  expect(queuedAt).not.toBe('');
  await expectFifo(runs('one', ['direct', 'behind']), 1);
  expect((await srv.get('/dag-runs/one/behind')).body.dagRun.queuedAt).toBe(queuedAt);
});

test('every queued run was started exactly once', async () => {
  await eventually(async () => (await srv.get('/dag-runs?status=5')).body.dagRuns.length === 0, 'empty queues');
  const starts = readFileSync(events(), 'utf8').trim().split('\n').filter((l) => l.startsWith('start ')).map((l) => l.split(' ')[2]);
  expect(starts.length).toBeGreaterThan(20);
  expect(new Set(starts).size).toBe(starts.length);
});
