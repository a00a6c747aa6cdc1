/**
 * Stop and approval requests wake a run's driver at once (RunEvents), with nothing polled: the resync
 * is set to an hour, so a request that only a poll would see would leave these runs waiting past the
 * test's timeout. The requests come from other instances of the stores, as from another process.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRunControls } from '../../src/adapters/store/local/controls.js';
import { LocalRunEvents } from '../../src/adapters/store/local/events.js';
import { LocalRunStore } from '../../src/adapters/store/local/run-store.js';
import { loadConfig } from '../../src/config/config.js';
import { NodeStatus, RunStatus } from '../../src/core/run/status.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { embeddedDeps, loadDagFile } from '../../src/main/embedded.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function setup(yaml: string) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-events-'));
  const dataDir = join(dir, 'data');
  writeFileSync(join(dir, 'dag.yaml'), yaml);
  const config = loadConfig({ PATH: process.env.PATH, HOME: dir, SVC_DATA_DIR: dataDir, SVC_DAGS_DIR: dir });
  const runs = new RunService({ ...embeddedDeps(config, quiet), resyncMs: 3_600_000 });
  return { dir, dataDir, runs, dag: () => loadDagFile(join(dir, 'dag.yaml')) };
}

/** Until ok(read()), for at most 10 s (then the test fails here, and nothing keeps polling). */
async function until<T>(read: () => Promise<T | undefined>, ok: (v: T) => boolean): Promise<T> {
  for (const end = Date.now() + 10_000; Date.now() < end;) {
    const v = await read();
    if (v !== undefined && ok(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not reached in 10 s');
}

/** Creates a run of the sandbox's DAG, drives it, and returns once its first step has `status`. */
async function drivenUntil(s: ReturnType<typeof setup>, runs: RunService, status: NodeStatus) {
  const run = await runs.create(await s.dag());
  const key = { dagName: run.spec.dagName, dagRunId: run.spec.dagRunId };
  const done = runs.drive(key);
  const other = new LocalRunStore({ dataDir: s.dataDir });
  await until(() => other.get(key), (r) => r.status.run.nodes[0]?.status === status);
  return { key, done, other };
}

describe('RunEvents wake the driver', () => {
  test('a stop request recorded by another store instance stops a run at once', async () => {
    const s = setup('steps:\n  - name: long\n    command: sleep 30\n  - name: after\n    command: "true"\n');
    const { key, done, other } = await drivenUntil(s, s.runs, NodeStatus.Running);
    await other.requestStop(key);
    const final = await done;
    expect(final.status.run.status).toBe(RunStatus.Aborted);
    expect(final.status.run.nodes.map((n) => n.status)).toEqual([NodeStatus.Aborted, NodeStatus.NotStarted]);
  }, 20_000);

  test('an approval pushed by another process is applied at once', async () => {
    const s = setup('steps:\n  - name: gate\n    type: hitl\n  - name: after\n    command: echo approved\n    depends: [gate]\n');
    const { key, done } = await drivenUntil(s, s.runs, NodeStatus.Waiting);
    await new LocalRunControls({ dataDir: s.dataDir }).push(key, { type: 'approve', node: 'gate', inputs: {} });
    const final = await done;
    expect(final.status.run.status).toBe(RunStatus.Succeeded);
  }, 20_000);

  test('the adapter: one wake-up per request, none for the driver\'s own status writes; unsubscribe stops them', async () => {
    const s = setup('steps:\n  - name: a\n    command: "true"\n');
    const run = await s.runs.create(await s.dag());
    const key = { dagName: run.spec.dagName, dagRunId: run.spec.dagRunId };
    let wakes = 0;
    const off = new LocalRunEvents({ dataDir: s.dataDir }).watch(key, () => { wakes += 1; });
    const store = new LocalRunStore({ dataDir: s.dataDir });
    await store.updateStatus(key, run.metadata.resourceVersion, run.status);
    await new Promise((r) => setTimeout(r, 100));
    expect(wakes).toBe(0);
    await store.requestStop(key);
    await until(async () => wakes, (n) => n > 0);
    const before = wakes; // read first: the notification may arrive before push() resolves
    await new LocalRunControls({ dataDir: s.dataDir }).push(key, { type: 'reject', node: 'a' });
    await until(async () => wakes, (n) => n > before);
    await new Promise((r) => setTimeout(r, 100)); // one request may notify more than once: let them all land
    off();
    const after = wakes;
    await new LocalRunControls({ dataDir: s.dataDir }).push(key, { type: 'reject', node: 'a' });
    await new Promise((r) => setTimeout(r, 100));
    expect(wakes).toBe(after);
  });

  test('without notifications (no inotify instance left: EMFILE) a run is still woken, by a periodic look', async () => {
    const s = setup('steps:\n  - name: long\n    command: sleep 30\n');
    const emfile = () => { throw Object.assign(new Error('EMFILE: too many open files, watch'), { code: 'EMFILE' }); };
    const deps = { ...embeddedDeps(loadConfig({ PATH: process.env.PATH, HOME: s.dir, SVC_DATA_DIR: s.dataDir }), quiet), resyncMs: 3_600_000 };
    const runs = new RunService({ ...deps, events: new LocalRunEvents({ dataDir: s.dataDir, watch: emfile }) });
    const { key, done, other } = await drivenUntil(s, runs, NodeStatus.Running);
    await other.requestStop(key);
    expect((await done).status.run.status).toBe(RunStatus.Aborted);
  }, 20_000);
});
