/**
 * What the server's periodic work reads (issue 20, item 14: under load a start waited behind whole-history
 * scans). The queue processor's reconcile (its safety tick), the takeover of orphaned runs, the admission
 * counts of a start and the metrics census list only the unfinished runs (and the census, today's roots),
 * which the embedded store's run index answers: the runs they read do not grow with the history kept.
 * Work, not time: the local store's run reads are counted, with 320 finished runs from yesterday (20 of
 * them of the DAG whose runs are open) and 3 unfinished ones today. Were any of them to list every run
 * again (or every run of the DAG), it would read all 323 (or 23).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRunStore } from '../../src/adapters/store/local/run-store.js';
import { runKeyOf } from '../../src/core/ports/run-store.js';
import { RunStatus } from '../../src/core/run/status.js';
import { parseDagText } from '../../src/core/spec/load.js';
import { LaunchService } from '../../src/engine/services/launch-service.js';
import { QueueProcessor } from '../../src/engine/services/queue-processor.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { RunCensus, startOfDay } from '../../src/observability/run-census.js';
import { memoryDeps, world } from './memory-world.js';

const HISTORY_DAGS = 20;
const RUNS_PER_DAG = 15;
/** Finished runs of the DAG whose runs are open, too: what its own admission counts must not read. */
const OPEN_DAG_HISTORY = 20;
const HISTORY = HISTORY_DAGS * RUNS_PER_DAG + OPEN_DAG_HISTORY;
const OPEN = 3;

const loaded = (yaml: string) => {
  const { definition, localDags, errors } = parseDagText(yaml, 'open');
  return { definition, localDags, errors };
};

describe('periodic work reads the unfinished runs, not the history', () => {
  const today = Date.now();
  let now = startOfDay(today) - 12 * 3_600_000; // yesterday, noon
  const clock = { now: () => now };
  const store = new LocalRunStore({ dataDir: mkdtempSync(join(tmpdir(), 'svc-history-reads-')), clock });
  const w = world();
  const deps = { ...memoryDeps(w, 1), store, clock };
  const runs = new RunService(deps);
  const launcher = new LaunchService(deps, runs);

  /** Every run the store materialises (a get, each run of a list) goes through its private `read`. */
  let reads = 0;
  const local = store as unknown as { read: (p: unknown) => Promise<unknown> };
  const read = local.read.bind(store);
  local.read = (p) => { reads += 1; return read(p); };
  const counted = async (work: () => Promise<unknown>): Promise<number> => {
    const before = reads;
    await work();
    return reads - before;
  };

  beforeAll(async () => {
    // The history: finished root runs of yesterday, spread over DAGs (each start prunes its DAG's own).
    const dag = loaded('steps:\n  - name: s\n    command: "true"\n');
    const open = loaded('maxActiveRuns: 1\nsteps:\n  - name: s\n    command: "true"\n');
    const finished = async (run: Awaited<ReturnType<RunService['create']>>, i: number) =>
      store.updateStatus(runKeyOf(run), run.metadata.resourceVersion, { ...run.status, run: { ...run.status.run, status: i % 7 ? RunStatus.Succeeded : RunStatus.Failed } });
    for (let d = 0; d < HISTORY_DAGS; d++) {
      for (let i = 0; i < RUNS_PER_DAG; i++) await finished(await runs.create(dag, { dagName: `old-${d}`, dagRunId: `h${i}` }), i);
    }
    for (let i = 0; i < OPEN_DAG_HISTORY; i++) await finished(await runs.create(open, { dagRunId: `h${i}` }), i);
    // Today: one run being driven (by a live process) and two queued behind it (maxActiveRuns 1).
    now = today;
    const running = await runs.create(open, { dagRunId: 'running' });
    await w.owners.as('engine-9').acquire(runKeyOf(running));
    await store.updateStatus(runKeyOf(running), running.metadata.resourceVersion, { ...running.status, run: { ...running.status.run, status: RunStatus.Running } });
    for (const id of ['q1', 'q2']) await runs.create(open, { dagRunId: id, queued: true });
    expect(await store.indexReady(10_000)).toBe(true);
  }, 120_000);

  test('the counter sees a whole listing: every run read', async () => {
    expect(await counted(() => store.list())).toBe(HISTORY + OPEN);
  });

  test('the queue processor\'s reconcile (start and safety tick) reads only the unfinished runs', async () => {
    const queue = new QueueProcessor(deps, launcher, []);
    expect(await counted(() => queue.reconcile())).toBeLessThanOrEqual(OPEN);
    // It saw them all: the running one holds the slot, the queued two wait in FIFO order.
    expect(queue.snapshot()).toEqual([{ name: 'open', maxActiveRuns: 1, running: [{ dagName: 'open', dagRunId: 'running' }], queued: [{ dagName: 'open', dagRunId: 'q1' }, { dagName: 'open', dagRunId: 'q2' }] }]);
  });

  test('the takeover of orphaned runs (every maintenance tick) reads only the unfinished runs', async () => {
    let taken = -1;
    expect(await counted(async () => { taken = await launcher.takeOver(); })).toBeLessThanOrEqual(OPEN);
    expect(taken).toBe(0); // the running run's driver is alive; queued runs are the queue's
  });

  test('a start\'s admission counts read only the DAG\'s unfinished runs', async () => {
    let c = { active: 0, queued: 0 };
    expect(await counted(async () => { c = await launcher.counts('open'); })).toBeLessThanOrEqual(OPEN);
    expect(c).toEqual({ active: 1, queued: 2 });
    expect(await counted(() => launcher.counts('old-3'))).toBe(0);
  });

  test('the metrics census reads the unfinished runs and today\'s roots, not yesterday\'s', async () => {
    const census = new RunCensus(store, clock.now, 0);
    let snapshot: Awaited<ReturnType<RunCensus['snapshot']>> | undefined;
    // The unfinished runs are today's roots too: each may be read by both lists.
    expect(await counted(async () => { snapshot = await census.snapshot(); })).toBeLessThanOrEqual(2 * OPEN);
    expect(snapshot!.runs.map((r) => r.spec.dagRunId).sort()).toEqual(['q1', 'q2', 'running']);
  });
});
