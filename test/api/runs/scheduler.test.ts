/**
 * The scheduler with an injected clock: `tick(now)` is called with chosen minutes instead of waiting
 * for them. Real DAG store, catalog, launcher and engine over temp directories (as the server wires them).
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsDagStore } from '../../../src/adapters/dagstore/fs-dag-store.js';
import { loadConfig } from '../../../src/config/config.js';
import { StoreDagCatalog } from '../../../src/engine/services/dag-catalog.js';
import { LaunchService } from '../../../src/engine/services/launch-service.js';
import { RunService } from '../../../src/engine/services/run-service.js';
import { Scheduler, runIdFor } from '../../../src/engine/services/scheduler.js';
import { embeddedDeps } from '../../../src/main/embedded.js';
import { schedulerState } from '../../../src/main/server/runs.js';
import { consoleLogger } from '../../../src/observability/console-logger.js';
import { eventually } from './helpers.js';

const MIN = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'svc-sched-'));
const dagsDir = join(dir, 'dags');
const dataDir = join(dir, 'data');
mkdirSync(dagsDir, { recursive: true });
const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh', SVC_DATA_DIR: dataDir, SVC_DAGS_DIR: dagsDir });
const log = consoleLogger('error');
const engine = embeddedDeps(config, log);
const runs = new RunService(engine);
const launcher = new LaunchService(engine, runs);
const dagStore = new FsDagStore({ dagsDir, dataDir });
const catalog = new StoreDagCatalog(dagStore);
const slept: number[] = [];
const clock = { now: () => Date.now() };
const scheduler = () => new Scheduler({
  catalog, launcher, runs, store: engine.store, clock, log, state: schedulerState(dataDir), tz: 'UTC',
  sleep: async (ms) => { slept.push(ms); await new Promise((r) => setTimeout(r, 20)); },
});
const dag = (name: string, yaml: string) => writeFileSync(join(dagsDir, `${name}.yaml`), yaml);
/** Minutes of yesterday (UTC): runs started "now" then lie after every tick used here. */
const day = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000;
const at = (h: number, m: number) => day + h * 3_600_000 + m * MIN;
const runIds = async (name: string) => (await engine.store.list({ dagName: name })).map((r) => r.spec.dagRunId).sort();
const status = async (name: string, id: string) => (await runs.get({ dagName: name, dagRunId: id })).status.run.status;
const settle = (name: string, id: string, s: number) => eventually(async () => (await status(name, id)) === s, `${name}/${id} status ${s}`);

afterAll(() => launcher.close(5000));

describe('Scheduler', () => {
  const s = scheduler();

  test('a start schedule fires at its minute, with a run id derived from the tick; other minutes do nothing', async () => {
    dag('daily', 'schedule: "30 9 * * *"\nsteps:\n  - echo daily\n');
    expect(await s.tick(at(9, 29))).toEqual([]);
    const actions = await s.tick(at(9, 30) + 12_000);
    expect(actions).toEqual([{ dag: 'daily', kind: 'start', at: at(9, 30), dagRunId: runIdFor('start', at(9, 30)) }]);
    expect(await runIds('daily')).toEqual([runIdFor('start', at(9, 30))]);
    await settle('daily', runIdFor('start', at(9, 30)), 4);
  });

  test('the same minute is never handled twice: neither by this scheduler nor after a restart', async () => {
    expect(await s.tick(at(9, 30) + 40_000)).toEqual([]);
    // Restarted at the simulated minute (with the real clock its catch-up would see today's 9:30 too).
    const restarted = new Scheduler({ catalog, launcher, runs, store: engine.store, clock: { now: () => at(9, 30) + 50_000 }, log, state: schedulerState(dataDir), tz: 'UTC' });
    await restarted.start();
    restarted.stop();
    expect(await restarted.tick(at(9, 30))).toEqual([]);
    expect(await runIds('daily')).toHaveLength(1);
  });

  test('list, array and CRON_TZ forms', async () => {
    dag('tokyo', 'schedule: ["CRON_TZ=Asia/Tokyo 0 19 * * *", "45 9 * * *"]\nsteps:\n  - echo tokyo\n');
    const actions = await s.tick(at(10, 0)); // 19:00 in Tokyo (UTC+9)
    expect(actions.map((a) => [a.dag, a.kind, a.at])).toEqual([['tokyo', 'start', at(10, 0)]]);
  });

  test('missed ticks: the latest missed start within 10 minutes runs once; older ones are skipped', async () => {
    dag('catchup', 'schedule: ["3 11 * * *", "5 11 * * *", "20 11 * * *"]\nsteps:\n  - echo catchup\n');
    await s.tick(at(11, 0));
    const actions = await s.tick(at(11, 8)); // server "down" 11:01-11:07: 11:03 and 11:05 missed
    expect(actions.filter((a) => a.dag === 'catchup')).toEqual([{ dag: 'catchup', kind: 'start', at: at(11, 5), dagRunId: runIdFor('start', at(11, 5)) }]);
    await settle('catchup', runIdFor('start', at(11, 5)), 4);
    const late = await s.tick(at(11, 40)); // 11:20 missed by 20 minutes
    expect(late.filter((a) => a.dag === 'catchup')).toEqual([]);
    expect(await runIds('catchup')).toEqual([runIdFor('start', at(11, 5))]);
  });

  test('suspended and invalid DAGs are never scheduled', async () => {
    dag('paused', 'schedule: "0 12 * * *"\nsteps:\n  - echo paused\n');
    dag('invalid', 'schedule: "0 12 * * *"\nsteps:\n  - name: a\n    depends: [nope]\n    command: echo\n');
    await dagStore.setSuspended('paused', true);
    expect(await s.tick(at(12, 0))).toEqual([]);
    expect(await runIds('paused')).toEqual([]);
    await dagStore.setSuspended('paused', false);
  });

  test('skipIfSuccessful: skipped when the DAG succeeded since the previous tick', async () => {
    dag('once', 'skipIfSuccessful: true\nschedule: "0 * * * *"\nsteps:\n  - echo once\n');
    const first = await s.tick(at(13, 0));
    expect(first).toEqual([{ dag: 'once', kind: 'start', at: at(13, 0), dagRunId: runIdFor('start', at(13, 0)) }]);
    await settle('once', runIdFor('start', at(13, 0)), 4);
    const second = await s.tick(at(14, 0));
    expect(second.filter((a) => a.dag === 'once')).toEqual([{ dag: 'once', kind: 'start', at: at(14, 0), skipped: 'succeeded since the previous tick' }]);
  });

  test('a start is skipped while a run of the DAG is active; stop stops it; restart stops, waits restartWaitSec, starts', async () => {
    dag('svc', [
      'restartWaitSec: 2',
      'schedule:',
      '  start: ["0 15 * * *", "5 15 * * *"]',
      '  stop: "10 15 * * *"',
      '  restart: "20 15 * * *"',
      'steps:',
      '  - name: serve',
      '    command: sleep 8',
    ].join('\n'));
    const mine = async (now: number) => (await s.tick(now)).filter((a) => a.dag === 'svc');
    const id = runIdFor('start', at(15, 0));
    expect(await mine(at(15, 0))).toEqual([{ dag: 'svc', kind: 'start', at: at(15, 0), dagRunId: id }]);
    await settle('svc', id, 1);
    expect(await mine(at(15, 5))).toEqual([{ dag: 'svc', kind: 'start', at: at(15, 5), skipped: 'a run is active' }]);
    expect(await mine(at(15, 10))).toEqual([{ dag: 'svc', kind: 'stop', at: at(15, 10) }]);
    await settle('svc', id, 3);
    // start again by hand, then the restart schedule replaces it
    await launcher.start((await catalog.get('svc')).loaded, { trigger: 'manual', dagRunId: 'manual-1' });
    await settle('svc', 'manual-1', 1);
    const restart = await mine(at(15, 20));
    expect(restart).toEqual([{ dag: 'svc', kind: 'restart', at: at(15, 20), dagRunId: runIdFor('restart', at(15, 20)) }]);
    await s.settle();
    expect(await status('svc', 'manual-1')).toBe(3);
    expect(slept).toContain(2000);
    await settle('svc', runIdFor('restart', at(15, 20)), 1);
    await runs.stop({ dagName: 'svc', dagRunId: runIdFor('restart', at(15, 20)) });
    await settle('svc', runIdFor('restart', at(15, 20)), 3);
  });

  test('a scheduler taking over (a restart, a new operator leader) handles the tick its predecessor missed at once', async () => {
    dag('handover', 'schedule: "2 16 * * *"\nsteps:\n  - echo handover\n');
    const state = schedulerState(join(dir, 'handover'));
    await state.save(at(16, 0));
    const successor = new Scheduler({ catalog, launcher, runs, store: engine.store, clock: { now: () => at(16, 2) + 30_000 }, log, state, tz: 'UTC' });
    await successor.start();
    successor.stop();
    expect(await runIds('handover')).toEqual([runIdFor('start', at(16, 2))]);
    await settle('handover', runIdFor('start', at(16, 2)), 4);
  });

  test('the first scheduler ever records the minute it started in: what its successor missed is known', async () => {
    const state = schedulerState(join(dir, 'first'));
    const first = new Scheduler({ catalog, launcher, runs, store: engine.store, clock: { now: () => at(17, 0) + 5_000 }, log, state, tz: 'UTC' });
    await first.start();
    first.stop();
    expect(await state.load()).toBe(at(17, 0));
  });
});

