/**
 * The engine on in-memory adapters only: no disk, no processes (MemoryRunStore, MemoryLogStore,
 * MemoryRequests for approvals and wake-ups, MemoryExecutor for steps). Driving, stop, approval, retry,
 * adoption after a crash, and a crash between an effect and its save.
 */
import { execLog, runLog } from '../../src/core/ports/log-store.js';
import type { ExecRequest } from '../../src/core/ports/executor.js';
import type { DagRunResource, DagRunStatus as DagRunStatusT } from '../../src/core/resources.js';
import type { RunKey as RunKeyT } from '../../src/core/ports/run-store.js';
import { NodeStatus, RunStatus } from '../../src/core/run/status.js';
import { parseDagText } from '../../src/core/spec/load.js';
import type { EngineDeps } from '../../src/engine/deps.js';
import { LaunchService } from '../../src/engine/services/launch-service.js';
import { QueueProcessor } from '../../src/engine/services/queue-processor.js';
import { RunControl } from '../../src/engine/services/run-control.js';
import { RunWatcher } from '../../src/engine/services/run-watcher.js';
import { create, engine, keyOf, quiet, statuses, until, world } from './memory-world.js';

const nodeRunning = (i: number) => (r: DagRunResource) => r.status.run.nodes[i]?.status === NodeStatus.Running;

describe('engine on in-memory adapters', () => {
  test('a chain runs in order; the run log and outputs land in the log store', async () => {
    const w = world((req) => ({ exitCode: 0, output: `out-${req.identity.node}` }));
    const runs = engine(w, 1);
    const run = await create(runs, 'steps:\n  - name: a\n    command: x\n    output: A\n  - name: b\n    command: y\n');
    const done = await runs.drive(keyOf(run));
    expect(done.status.run.status).toBe(RunStatus.Succeeded);
    expect(w.executor.starts.map((n) => n.split('-')[1])).toEqual(['a', 'b']);
    const log = await w.logs.page(runLog(keyOf(run), run.status.attemptId), {});
    expect(log?.content).toMatch(/run running[\s\S]*step a succeeded[\s\S]*step b succeeded[\s\S]*run succeeded/);
    expect(await w.logs.readOutputs(keyOf(run), run.status.attemptId)).toMatchObject({ outputs: { a: 'out-a' } });
    expect(w.logs.locate(execLog({ ...keyOf(run), attemptId: run.status.attemptId, node: 'a', attempt: 0 }, 'stdout', false))).toMatch(/^memory:/);
  });

  test('at debug level every execution is logged when requested and when it ends', async () => {
    const w = world((req) => (req.identity.node === 'b' ? { exitCode: 2, error: 'exit status 2' } : { exitCode: 0 }));
    const events: Array<[string, Record<string, unknown> | undefined]> = [];
    const runs = engine(w, 1, { ...quiet, debug: (msg, fields) => { events.push([msg, fields]); } });
    const run = await create(runs, 'steps:\n  - name: a\n    command: x\n  - name: b\n    command: y\n');
    await runs.drive(keyOf(run));
    expect(events.map(([m, f]) => `${m} ${String(f?.step)} ${String(f?.exitCode ?? '')}`)).toEqual([
      'Requested execution a ', 'Finished execution a 0', 'Requested execution b ', 'Finished execution b 2',
    ]);
    expect(events[0]![1]).toMatchObject({ dag: run.spec.dagName, dagRunId: run.spec.dagRunId, execution: 0, adopting: false });
  });

  test('a stop request wakes the driver: the held step is signalled and the run ends aborted', async () => {
    const w = world(() => 'hold');
    const runs = engine(w, 1);
    const run = await create(runs, 'steps:\n  - name: a\n    command: x\n  - name: b\n    command: y\n');
    const done = runs.drive(keyOf(run));
    await until(w.store, run, nodeRunning(0));
    await runs.stop(keyOf(run));
    const final = await done;
    expect(final.status.run.status).toBe(RunStatus.Aborted);
    expect(statuses(final)).toEqual([NodeStatus.Aborted, NodeStatus.NotStarted]);
  });

  test('a run stopped right after its start, before its driver began it, ends aborted with nothing run', async () => {
    const w = world();
    const runs = engine(w, 1);
    const run = await create(runs, 'steps:\n  - name: a\n    command: x\n');
    await runs.stop(keyOf(run));
    const final = await runs.drive(keyOf(run));
    expect(final.status.run.status).toBe(RunStatus.Aborted);
    expect(w.executor.starts).toEqual([]);
  });

  test('an approval wakes the driver and the run goes on', async () => {
    const w = world();
    const runs = engine(w, 1);
    const run = await create(runs, 'steps:\n  - name: gate\n    type: hitl\n  - name: after\n    command: y\n    depends: [gate]\n');
    const done = runs.drive(keyOf(run));
    await until(w.store, run, (r) => r.status.run.status === RunStatus.Waiting);
    await w.requests.push(keyOf(run), { type: 'approve', node: 'gate', inputs: {} });
    expect((await done).status.run.status).toBe(RunStatus.Succeeded);
    expect(await w.requests.pending(keyOf(run))).toEqual([]);
  });

  test('retryPolicy: a failed execution is retried as a new execution with its own identity', async () => {
    let calls = 0;
    const w = world(() => (calls++ === 0 ? { exitCode: 3, error: 'exit status 3' } : { exitCode: 0 }));
    const runs = engine(w, 1);
    const run = await create(runs, 'steps:\n  - name: flaky\n    command: x\n    retryPolicy:\n      limit: 2\n      intervalSec: 0\n');
    const done = await runs.drive(keyOf(run));
    expect(done.status.run.status).toBe(RunStatus.Succeeded);
    expect(done.status.run.nodes[0]?.retryCount).toBe(1);
    expect(new Set(w.executor.starts).size).toBe(2);
  });

  test('after a crash a new driver adopts the execution that still runs; nothing starts twice; a live owner is not displaced', async () => {
    const w = world(() => 'hold');
    const first = engine(w, 1);
    const run = await create(first, 'steps:\n  - name: a\n    command: x\n  - name: b\n    command: y\n');
    void first.drive(keyOf(run)).catch(() => undefined);
    await until(w.store, run, nodeRunning(0));
    w.owners.dead.add('engine-1'); // the first engine's process is gone; its step lives on (held)
    const second = engine(w, 2);
    expect(await second.isOrphaned((await w.store.get(keyOf(run)))!)).toBe(true);
    const done = second.resume(keyOf(run));
    await new Promise((r) => setTimeout(r, 20));
    // The run has a live owner again: a third engine cannot take it.
    await expect(engine(w, 3).resume(keyOf(run))).rejects.toMatchObject({ code: 'already_running' });
    expect(w.executor.finish('a')).toBe(1);
    await until(w.store, run, nodeRunning(1));
    w.executor.finish('b');
    const final = await done;
    expect(final.status.run.status).toBe(RunStatus.Succeeded);
    expect(w.executor.starts.map((n) => n.split('-')[1])).toEqual(['a', 'b']);
  });

  test('a crash between an execution\'s start and the save of the state that asked for it: adopted, not started again', async () => {
    const w = world(() => 'hold');
    const runs = engine(w, 1);
    const run = await create(runs, 'steps:\n  - name: a\n    command: x\n');
    // What a driver that died right after starting `a` leaves: the execution runs, the saved state says
    // the run is running but `a` was never started (the state that started it was not saved).
    const saved = (await w.store.get(keyOf(run)))!;
    const state = { ...saved.status.run, status: RunStatus.Running, stage: 'steps' as const, startedAt: new Date().toISOString() };
    await w.store.updateStatus(keyOf(run), saved.metadata.resourceVersion, { ...saved.status, run: state });
    await w.owners.as('engine-9').acquire(keyOf(run));
    w.owners.dead.add('engine-9');
    w.executor.start({ identity: { ...keyOf(run), attemptId: saved.status.attemptId, node: 'a', attempt: 0 } } as ExecRequest);
    const done = engine(w, 2).resume(keyOf(run));
    await new Promise((r) => setTimeout(r, 20));
    expect(w.executor.holding('a')).toBe(1);
    w.executor.finish('a');
    expect((await done).status.run.status).toBe(RunStatus.Succeeded);
    expect(w.executor.starts).toHaveLength(1);
  });

  test('a dequeue racing the queue processor\'s claim: exactly one wins, and a dequeued run never runs', async () => {
    for (const order of ['dequeue inside the claim', 'claim first', 'claim inside the dequeue'] as const) {
      const dequeueFirst = order === 'dequeue inside the claim';
      const w = world();
      const runs = engine(w, 1);
      const { definition, localDags, errors } = parseDagText('steps:\n  - name: a\n    command: x\n', 'mem');
      const run = await runs.create({ definition, localDags, errors }, { queued: true });
      const key = keyOf(run);
      const deps = (runs as unknown as { deps: EngineDeps }).deps;
      const launcher = new LaunchService(deps, runs);
      const control = new RunControl(deps, runs, launcher, new RunWatcher(w.store, () => () => undefined));
      // The queue processor read the run as queued; the dequeue lands between that read and its claim.
      const store = { ...w.store, get: w.store.get.bind(w.store), updateStatus: w.store.updateStatus.bind(w.store), list: w.store.list.bind(w.store) };
      const queue = new QueueProcessor({ ...deps, store }, launcher, []);
      const claim = (queue as unknown as { claim(e: unknown): Promise<boolean> }).claim.bind(queue);
      const entry = { key, queue: 'mem', limit: 1, queuedAt: '', queued: true, gen: 0 };
      let result: { claimed: boolean; dequeued: boolean };
      if (dequeueFirst) {
        const realGet = store.get;
        store.get = async (k) => { const r = await realGet(k); store.get = realGet; await control.dequeue(key); return r; };
        const claimed = await claim(entry);
        result = { claimed, dequeued: true };
      } else if (order === 'claim first') {
        const claimed = await claim(entry);
        const dequeued = await control.dequeue(key).then(() => true, (e: { code?: string }) => { expect(e.code).toBe('not_found'); return false; });
        result = { claimed, dequeued };
      } else {
        // The dequeue reads the run as queued; the claim lands before its compare-and-swap.
        let claimed = false;
        const cas = w.store.updateStatus.bind(w.store);
        const racingStore = { ...store, updateStatus: async (k: RunKeyT, rv: string, st: DagRunStatusT) => { if (!claimed) claimed = await claim(entry); return cas(k, rv, st); } };
        const racing = new RunControl({ ...deps, store: racingStore }, runs, launcher, new RunWatcher(w.store, () => () => undefined));
        const dequeued = await racing.dequeue(key).then(() => true, (e: { code?: string }) => { expect(e.code).toBe('not_found'); return false; });
        expect(claimed).toBe(true);
        result = { claimed, dequeued };
      }
      expect(result.claimed !== result.dequeued).toBe(true);
      // A claim hands the run to the launcher, which drives it in the background.
      const final = result.claimed ? await until(w.store, run, (r) => r.status.run.status === RunStatus.Succeeded) : (await w.store.get(key))!;
      expect(final.status.run.status).toBe(result.claimed ? RunStatus.Succeeded : RunStatus.Aborted);
      expect(w.executor.starts.length).toBe(result.claimed ? 1 : 0);
      // The driver releases the run just after its end is saved.
      const probe = w.owners.as('probe');
      for (let i = 0; i < 100 && await probe.state(key) !== 'none'; i++) await new Promise((r) => setTimeout(r, 5));
      expect(await probe.state(key)).toBe('none');
    }
  });
});
