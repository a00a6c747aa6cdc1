/**
 * The cron scheduler (SPEC 2.2 schedule, reference 9): fires the `start`, `stop` and `restart`
 * schedules of the catalog's DAGs at each minute boundary. Suspended and invalid DAGs are never
 * scheduled; skipIfSuccessful skips a start when the DAG already succeeded since the previous tick;
 * a start is skipped while a run of the DAG is active (reference).
 *
 * Ticks missed while the server was down: skipped, except that the latest missed `start` tick of a DAG
 * runs once (a catch-up, at start) when it lies within CATCH_UP_MS of now. Missed stop and restart ticks are
 * skipped. The last minute handled is persisted *before* its runs are launched, and a scheduled run's
 * id is derived from its tick time (`sched-YYYYMMDDHHMM`), so a restart never runs a tick twice.
 *
 * Time is injected (clock) and `tick(now)` is public: tests drive minutes without waiting for them.
 */
import { CronExpressionParser } from 'cron-parser';
import { AlreadyExistsError, DomainError } from '../../core/errors.js';
import type { Clock } from '../../core/ports/clock.js';
import type { EngineLogger, LoadedDag } from '../../core/ports/engine-ports.js';
import { listUnfinished, type RunStore } from '../../core/ports/run-store.js';
import { RunStatus } from '../../core/run/status.js';
import type { CronEntry } from '../../core/spec/types.js';
import type { DagCatalog } from './catalog.js';
import type { LaunchService } from './launch-service.js';
import type { RunService } from './run-service.js';

const MINUTE = 60_000;
/** A missed start tick younger than this runs once after a restart. */
export const CATCH_UP_MS = 10 * MINUTE;

export interface SchedulerState {
  /** The last minute boundary handled (ms), undefined on first start. */
  load(): Promise<number | undefined>;
  save(minuteMs: number): Promise<void>;
}

export interface SchedulerDeps {
  catalog: DagCatalog;
  launcher: LaunchService;
  runs: RunService;
  store: Pick<RunStore, 'list'>;
  clock: Clock;
  log: EngineLogger;
  state: SchedulerState;
  /** Zone of entries without CRON_TZ= (config tz; default the system's). */
  tz?: string;
  sleep?: (ms: number) => Promise<void>;
}

export interface TickAction {
  dag: string;
  kind: 'start' | 'stop' | 'restart';
  /** The tick (ms) this action belongs to (earlier than the current minute for a catch-up). */
  at: number;
  dagRunId?: string;
  skipped?: string;
}

const floorMinute = (ms: number): number => Math.floor(ms / MINUTE) * MINUTE;
const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function runIdFor(kind: string, at: number): string {
  const d = new Date(at).toISOString();
  return `${kind === 'restart' ? 'restart' : 'sched'}-${d.slice(0, 4)}${d.slice(5, 7)}${d.slice(8, 10)}${d.slice(11, 13)}${d.slice(14, 16)}`;
}

export class Scheduler {
  private last: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private running = false;
  /** Restarts in progress (stop, wait, start), awaited by stop(). */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: SchedulerDeps) {}

  /**
   * Picks up where the previous scheduler stopped (this process before a restart, or the operator leader
   * before this one): a minute boundary it missed is handled now, not at the next one, so a schedule is
   * not lost when its scheduler changes shortly before a tick. The first scheduler ever records the
   * current minute, so its successors know what was missed.
   */
  async start(): Promise<void> {
    this.last = await this.deps.state.load();
    this.running = true;
    const now = this.deps.clock.now();
    if (this.last === undefined) {
      this.last = floorMinute(now);
      await this.deps.state.save(this.last);
    } else if (floorMinute(now) > this.last) {
      await this.tick(now).catch((e: unknown) => this.deps.log.error('Scheduler tick failed', { error: e instanceof Error ? e.message : String(e) }));
    }
    this.arm();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Handles every minute boundary up to `now` not handled yet (serialised). */
  tick(now: number): Promise<TickAction[]> {
    const next = this.chain.then(() => this.tickOnce(now));
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Restarts still waiting for their runs to stop (tests). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private arm(): void {
    if (!this.running) return;
    const now = this.deps.clock.now();
    this.timer = setTimeout(() => {
      void this.tick(this.deps.clock.now())
        .catch((e: unknown) => this.deps.log.error('Scheduler tick failed', { error: e instanceof Error ? e.message : String(e) }))
        .finally(() => this.arm());
    }, floorMinute(now) + MINUTE - now + 20);
    this.timer.unref();
  }

  private async tickOnce(now: number): Promise<TickAction[]> {
    const minute = floorMinute(now);
    const last = this.last;
    if (last !== undefined && minute <= last) return [];
    this.last = minute;
    await this.deps.state.save(minute);
    const actions: TickAction[] = [];
    const { entries } = await this.deps.catalog.list();
    for (const e of entries) {
      const def = e.loaded.definition;
      if (e.suspended || e.loaded.errors.length > 0 || !def?.schedule) continue;
      const start = this.due(def.schedule.start, minute, last, true);
      if (start !== undefined) actions.push(await this.fireStart(e.loaded, start, def.schedule.start));
      if (this.due(def.schedule.stop, minute, last, false) !== undefined) actions.push(await this.fireStop(def.name, minute));
      if (this.due(def.schedule.restart, minute, last, false) !== undefined) actions.push(this.fireRestart(e.loaded, minute));
    }
    return actions;
  }

  /** The tick to act on: the current minute when an entry matches it, else (starts only) a recent missed one. */
  private due(entries: CronEntry[], minute: number, last: number | undefined, catchUp: boolean): number | undefined {
    if (entries.some((c) => this.matches(c, minute))) return minute;
    if (!catchUp || last === undefined) return undefined;
    const missed = entries.map((c) => this.previous(c, minute)).filter((t): t is number => t !== undefined && t > last && minute - t <= CATCH_UP_MS);
    return missed.length > 0 ? Math.max(...missed) : undefined;
  }

  private matches(c: CronEntry, t: number): boolean {
    const it = CronExpressionParser.parse(c.expression, { currentDate: new Date(t - 1000), ...this.zone(c) });
    return it.next().getTime() === t;
  }

  /** The latest tick of an entry strictly before t. */
  private previous(c: CronEntry, t: number): number | undefined {
    try {
      return CronExpressionParser.parse(c.expression, { currentDate: new Date(t), ...this.zone(c) }).prev().getTime();
    } catch {
      return undefined;
    }
  }

  private zone(c: CronEntry): { tz?: string } {
    const tz = c.timezone ?? this.deps.tz;
    return tz ? { tz } : {};
  }

  private async fireStart(dag: LoadedDag, at: number, entries: CronEntry[]): Promise<TickAction> {
    const name = dag.definition.name;
    const action: TickAction = { dag: name, kind: 'start', at };
    if (dag.definition.skipIfSuccessful && await this.succeededSince(name, at, entries)) return { ...action, skipped: 'succeeded since the previous tick' };
    try {
      const r = await this.deps.launcher.start(dag, { trigger: 'schedule', singleton: true, dagRunId: runIdFor('start', at) });
      this.deps.log.info('Started scheduled dag-run', { dag: name, dagRunId: r.dagRunId, tick: new Date(at).toISOString() });
      return { ...action, dagRunId: r.dagRunId };
    } catch (e) {
      if (e instanceof AlreadyExistsError) return { ...action, skipped: 'this tick already ran' };
      if (e instanceof DomainError && e.code === 'already_running') return { ...action, skipped: 'a run is active' };
      this.deps.log.error('Failed to start scheduled dag-run', { dag: name, error: e instanceof Error ? e.message : String(e) });
      return { ...action, skipped: e instanceof Error ? e.message : String(e) };
    }
  }

  /** skipIfSuccessful: the latest run succeeded after the tick before this one. */
  private async succeededSince(name: string, at: number, entries: CronEntry[]): Promise<boolean> {
    const prev = Math.max(...entries.map((c) => this.previous(c, at) ?? -Infinity));
    const latest = await this.deps.runs.latest(name);
    if (!latest || !Number.isFinite(prev)) return false;
    const s = latest.status.run;
    return (s.status === RunStatus.Succeeded || s.status === RunStatus.PartiallySucceeded) && Date.parse(s.startedAt) >= prev;
  }

  private async activeRuns(name: string) {
    return (await listUnfinished(this.deps.store, { dagName: name, rootOnly: true })).filter((r) => r.status.run.status !== RunStatus.Queued);
  }

  private async fireStop(name: string, at: number): Promise<TickAction> {
    const active = await this.activeRuns(name);
    for (const r of active) {
      await this.deps.runs.stop({ dagName: name, dagRunId: r.spec.dagRunId }).catch(() => undefined);
    }
    this.deps.log.info('Stopped dag-runs on schedule', { dag: name, runs: active.length });
    return { dag: name, kind: 'stop', at, ...(active.length === 0 ? { skipped: 'no active run' } : {}) };
  }

  /** restart: stop the active runs, wait until they ended, wait restartWaitSec, start a new run. */
  private fireRestart(dag: LoadedDag, at: number): TickAction {
    const name = dag.definition.name;
    const dagRunId = runIdFor('restart', at);
    const p = (async () => {
      const sleep = this.deps.sleep ?? realSleep;
      await this.fireStop(name, at);
      for (let i = 0; i < 600 && (await this.activeRuns(name)).length > 0; i++) await sleep(500);
      if (dag.definition.restartWaitSec > 0) await sleep(dag.definition.restartWaitSec * 1000);
      await this.deps.launcher.start(dag, { trigger: 'schedule', singleton: true, dagRunId });
      this.deps.log.info('Restarted dag-run on schedule', { dag: name, dagRunId });
    })().catch((e: unknown) => this.deps.log.warn('Scheduled restart failed', { dag: name, error: e instanceof Error ? e.message : String(e) }));
    const tracked = p.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
    return { dag: name, kind: 'restart', at, dagRunId };
  }
}
