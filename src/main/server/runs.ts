/** Wiring of the runs area (SPEC 4.4, 4.5, 3.3): launcher, queue processor, scheduler, run routers. */
import { join } from 'node:path';
import { JsonStateFile, type UnreadableReport } from '../../adapters/fs/json-state.js';
import { runsRouters } from '../../api/runs/index.js';
import { LaunchService } from '../../engine/services/launch-service.js';
import type { RunLauncher } from '../../engine/services/launcher.js';
import { QueueProcessor } from '../../engine/services/queue-processor.js';
import { RunControl } from '../../engine/services/run-control.js';
import { RunQueries } from '../../engine/services/run-queries.js';
import { RunWatcher } from '../../engine/services/run-watcher.js';
import { Scheduler, type SchedulerState } from '../../engine/services/scheduler.js';
import type { AreaParts, ServerBase } from './base.js';
import type { DagsArea } from './dags.js';

export interface RunsArea extends AreaParts {
  launcher: RunLauncher;
  queues: QueueProcessor;
  scheduler: Scheduler;
}

/** On shutdown, runs in flight get this long to finish; the rest are resumed by the next start. */
const SHUTDOWN_GRACE_MS = 2000;

/** `report` hears of a state file that exists but cannot be read (it is kept, moved aside on the next save). */
export function schedulerState(dataDir: string, report?: UnreadableReport): SchedulerState {
  const file = new JsonStateFile<{ lastTick?: string }>(join(dataDir, 'scheduler', 'state.json'), report);
  return {
    load: async () => {
      const t = Date.parse((await file.load())?.lastTick ?? '');
      return Number.isFinite(t) ? t : undefined;
    },
    save: (ms) => file.save({ lastTick: new Date(ms).toISOString() }),
  };
}

/** An unreadable scheduler state as a warning in the server's log. */
export const unreadableTo = (log: { warn(msg: string, fields?: Record<string, unknown>): void }): UnreadableReport =>
  (path, error) => log.warn('Kept an unreadable scheduler state file: it is moved aside on the next save', { path, error: String(error) });

export async function wireRuns(base: ServerBase, dags: DagsArea): Promise<RunsArea> {
  const { engine, runs, config } = base;
  const drives = base.backend.drives;
  const launcher = new LaunchService(engine, runs, { drives });
  const queues = new QueueProcessor(engine, launcher, config.queues);
  // Created runs are saved changes too (the queue index, DAG history caches and metrics all listen).
  launcher.onCreated = (run) => base.events.emit(run);
  const unsubscribe = base.events.on((run) => queues.observe(run));
  const watcher = new RunWatcher(engine.store, (fn) => base.events.on(fn));
  const scheduler = new Scheduler({
    catalog: dags.catalog, launcher, runs, store: engine.store, clock: engine.clock, log: base.log,
    state: schedulerState(config.dataDir, unreadableTo(base.log)), ...(config.tz ? { tz: config.tz } : {}),
  });
  const routers = runsRouters({
    catalog: dags.catalog, launcher, runs, watcher, logs: engine.logs,
    control: new RunControl(engine, runs, launcher, watcher), queries: new RunQueries(engine, runs),
    inlineWorkingDir: config.dagsDir,
  });
  return {
    launcher, queues, scheduler, routers,
    async start() {
      // On kubernetes the operator drives runs, processes the queues and fires the schedules.
      if (!drives) return;
      const n = await launcher.takeOver();
      if (n > 0) base.log.info('Took over dag-runs left by a previous server', { runs: n });
      // The queue's slow safety tick also takes over runs whose driver died since (a CLI process killed).
      if (config.queuesEnabled) await queues.start(() => launcher.takeOver());
      await scheduler.start();
    },
    async stop() {
      scheduler.stop();
      queues.stop();
      unsubscribe();
      await launcher.close(SHUTDOWN_GRACE_MS);
    },
  };
}
