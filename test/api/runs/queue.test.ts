/** Queues (SPEC 3.3, 2.2 maxActiveRuns/queue; reference 9): FIFO, concurrency, named queues, overrides. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, runsServer, waitRun } from './helpers.js';

const srv = runsServer();
const events = () => join(srv.dir, 'events.log');
const step = (extra = '') => `${extra}steps:\n  - name: s\n    command: echo "start $DAG_NAME $DAG_RUN_ID" >> ${events()}; sleep 0.3; echo "end $DAG_NAME $DAG_RUN_ID" >> ${events()}\n`;

/** Start order and the highest number of runs that overlapped, from the events log. */
function analyse(filter: (line: string) => boolean = () => true) {
  const lines = readFileSync(events(), 'utf8').trim().split('\n').filter(filter);
  let now = 0;
  let max = 0;
  const starts: string[] = [];
  for (const l of lines) {
    const [kind, , id] = l.split(' ');
    if (kind === 'start') { now++; starts.push(id!); } else now--;
    max = Math.max(max, now);
  }
  return { starts, max };
}

beforeAll(async () => {
  const config = join(srv.dir, 'config.yaml');
  writeFileSync(config, 'queues:\n  - name: pool\n    maxActiveRuns: 2\n');
  (srv.env as Record<string, string>).SVC_CONFIG = config;
  writeFileSync(events(), '');
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

const finished = (name: string, ids: string[]) => Promise.all(ids.map((id) => waitRun(srv, name, id, 'succeeded')));

test('per-DAG queue, maxActiveRuns 1: FIFO, one at a time, every run once', async () => {
  const ids = ['o1', 'o2', 'o3', 'o4', 'o5'];
  await enqueueAll('one', ids);
  await finished('one', ids);
  const { starts, max } = analyse((l) => l.includes(' one '));
  expect(starts).toEqual(ids);
  expect(max).toBe(1);
});

test('per-DAG queue, maxActiveRuns 3: at most three at a time, started in FIFO order', async () => {
  const ids = Array.from({ length: 7 }, (_, i) => `t${i + 1}`);
  await enqueueAll('three', ids);
  await finished('three', ids);
  const { starts, max } = analyse((l) => l.includes(' three '));
  expect(max).toBeLessThanOrEqual(3);
  expect(max).toBeGreaterThan(1);
  expect(starts.slice(0, 3).sort()).toEqual(['t1', 't2', 't3']);
  expect(starts.sort()).toEqual([...ids].sort());
});

test('maxActiveRuns -1: no limit', async () => {
  const ids = ['u1', 'u2', 'u3', 'u4'];
  await enqueueAll('unlimited', ids);
  await finished('unlimited', ids);
  expect(analyse((l) => l.includes(' unlimited ')).max).toBeGreaterThan(1);
});

test('a named global queue (config queues) caps the DAGs that share it, whatever their maxActiveRuns', async () => {
  const a = ['pa1', 'pa2', 'pa3'];
  const b = ['pb1', 'pb2', 'pb3'];
  await enqueueAll('pooled-a', a);
  await enqueueAll('pooled-b', b);
  await Promise.all([finished('pooled-a', a), finished('pooled-b', b)]);
  const { starts, max } = analyse((l) => l.includes(' pooled-'));
  expect(max).toBeLessThanOrEqual(2);
  expect(starts).toEqual([...a, ...b]);
});

test('queue override on enqueue puts a DAG into a named queue', async () => {
  const ids = ['ov1', 'ov2', 'ov3'];
  await enqueueAll('unlimited', ids, { queue: 'pool' });
  await finished('unlimited', ids);
  expect(analyse((l) => / unlimited ov/.test(l)).max).toBeLessThanOrEqual(2);
});

test('dagName override: the run is queued and limited under the new name', async () => {
  const ids = ['dn1', 'dn2', 'dn3'];
  await enqueueAll('three', ids, { dagName: 'renamed' });
  await finished('renamed', ids);
  const { starts } = analyse((l) => l.includes(' renamed '));
  expect(starts.sort()).toEqual(ids);
  expect((await srv.get('/dag-runs?name=renamed')).body.dagRuns).toHaveLength(3);
});

test('queued runs keep queuedAt; a run started directly counts against the DAG queue', async () => {
  await srv.post('/dags/one/start', { dagRunId: 'direct' });
  await srv.post('/dags/one/enqueue', { dagRunId: 'behind' });
  const behind = (await srv.get('/dag-runs/one/behind')).body.dagRun;
  expect(behind.statusLabel).toBe('queued');
  const queuedAt = behind.queuedAt;
  expect(queuedAt).not.toBe('');
  await finished('one', ['direct', 'behind']);
  const { starts } = analyse((l) => l.includes(' one '));
  expect(starts.indexOf('direct')).toBeLessThan(starts.indexOf('behind'));
  expect((await srv.get('/dag-runs/one/behind')).body.dagRun.queuedAt).toBe(queuedAt);
});

test('every queued run was started exactly once', async () => {
  await eventually(async () => (await srv.get('/dag-runs?status=5')).body.dagRuns.length === 0, 'empty queues');
  const { starts } = analyse();
  expect(new Set(starts).size).toBe(starts.length);
});
