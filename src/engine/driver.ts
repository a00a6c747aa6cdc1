/**
 * The run driver: the one writer of a run's status. It feeds observations to decide(), saves the new
 * state with compare-and-swap, then applies the effects. Event-driven: a finished execution wakes
 * the loop at once; timers only for retry/repeat intervals, timeouts and the stop-request poll.
 * After a crash, driving the same run again adopts executions still running (or reports them
 * interrupted) and finishes the rest: a run is never left running forever.
 */
import { decide } from '../core/run/decide.js';
import type { Observation, RunState } from '../core/run/state.js';
import { liveExecs, isResolving } from '../core/run/context.js';
import { RunStatus, isRunTerminal } from '../core/run/status.js';
import type { RunKey } from '../core/ports/run-store.js';
import type { DagRunResource } from '../core/resources.js';
import { NotFoundError } from '../core/errors.js';
import { driverRecord, type EngineDeps } from './deps.js';
import { EffectApplier } from './effects.js';
import { prepareRunContext } from './run-context.js';
import { RunLogWriter, runLogLines } from './run-log.js';
import { StatusWriter } from './status-writer.js';
import { runLog } from '../core/ports/log-store.js';

export class RunDriver {
  constructor(private readonly deps: EngineDeps) {}

  /** Drives the run to a terminal status and returns the final resource. */
  async drive(key: RunKey): Promise<DagRunResource> {
    let run = await this.deps.store.get(key);
    if (!run) throw new NotFoundError(`dag-run ${key.dagRunId} of ${key.dagName} not found`);
    if (isRunTerminal(run.status.run.status)) return run;
    const writer = new StatusWriter(this.deps, run);
    // This process becomes the run's driver with its first save (no separate write), made durable at once.
    const driver = driverRecord(this.deps);
    let ctx;
    try {
      ctx = await prepareRunContext(run, this.deps);
    } catch (e) {
      return this.failEarly(run, writer, e instanceof Error ? e.message : String(e), driver);
    }
    const loop = new Loop();
    const resumed = run.status.run.status !== RunStatus.NotStarted && run.status.run.status !== RunStatus.Queued;
    const applier = new EffectApplier(this.deps, run, ctx, (o) => loop.push(o), (k) => this.drive(k), resumed);
    if (resumed) await this.resume(run, applier);
    const poll = new Poll(this.deps, key, loop);
    let claimed = false;
    const attemptId = run.status.attemptId;
    const log = runLog(key, attemptId);
    const runLogWriter = new RunLogWriter((text) => this.deps.logs.append(log, text), this.deps.clock);
    for (;;) {
      const controls = await poll.due();
      const observed = loop.take();
      const d = decide(run.spec.definition, run.status.run, observed, this.deps.clock.now());
      // Observations or effects always change the state; only a timer wake-up needs the comparison.
      const changed = observed.length > 0 || d.effects.length > 0 || JSON.stringify(d.state) !== JSON.stringify(run.status.run);
      if (changed) {
        const lines = runLogLines(run.status.run, d.state);
        run = { ...run, status: { ...run.status, run: d.state, driver } };
        writer.put(run.status);
        this.deps.onState?.(run);
        runLogWriter.add(lines);
      }
      // Durable first: the driver claim, an acknowledged approval, effects whose start is not recorded on its own.
      if (!claimed || controls.length > 0 || applier.needsDurableState(d.effects)) {
        await writer.flush();
        claimed = true;
      }
      if (controls.length > 0) await this.deps.controls?.ack(key, controls);
      applier.setRun(run);
      await applier.applyAll(d.effects);
      if (isRunTerminal(run.status.run.status) && applier.liveCount() === 0) break;
      await loop.wait(d.wakeAt ? Date.parse(d.wakeAt) - this.deps.clock.now() : Infinity, poll.waitMs());
    }
    await runLogWriter.flush();
    return writer.flush();
  }

  /** A run that cannot even start (a secret that cannot be read, ...) fails with the reason. */
  private async failEarly(run: DagRunResource, writer: StatusWriter, error: string, driver: Driver): Promise<DagRunResource> {
    const now = new Date(this.deps.clock.now()).toISOString();
    const state: RunState = { ...run.status.run, status: RunStatus.Failed, stage: 'done', error, startedAt: run.status.run.startedAt || now, finishedAt: now };
    this.deps.log.error('Failed to start dag-run', { dag: run.spec.dagName, dagRunId: run.spec.dagRunId, error });
    writer.put({ ...run.status, run: state, driver });
    return writer.flush();
  }

  /** Re-attaches to whatever the previous driver left running. */
  private async resume(run: DagRunResource, applier: EffectApplier): Promise<void> {
    const state = run.status.run;
    this.deps.log.info('Resumed dag-run', { dag: run.spec.dagName, dagRunId: run.spec.dagRunId });
    const all = [...state.nodes, ...state.handlers];
    for (const node of all) {
      for (const exec of liveExecs(node)) await applier.adopt(exec);
      if (isResolving(node)) await applier.applyAll([{ kind: 'resolveItems', node: node.name }]);
    }
    if (state.stage === 'preconditions') await applier.applyAll([{ kind: 'checkPreconditions' }]);
  }
}

type Driver = NonNullable<DagRunResource['status']['driver']>;

/**
 * Stop requests and approval decisions, written by other processes, are polled: on a timer wake-up,
 * and at most once per poll interval while executions keep the loop busy.
 */
class Poll {
  private readonly everyMs: number;
  private at = -Infinity;
  private stopSeen = false;

  constructor(private readonly deps: EngineDeps, private readonly key: RunKey, private readonly loop: Loop) {
    this.everyMs = deps.stopPollMs ?? 250;
  }

  /** How long the loop may sleep before the next poll. */
  waitMs(): number {
    return this.stopSeen ? Infinity : this.everyMs;
  }

  /** Polls if due: a stop becomes an observation; approvals are fed too, and their ids returned (acknowledged once saved). */
  async due(): Promise<string[]> {
    if (this.loop.busy() && this.deps.clock.now() - this.at < this.everyMs) return [];
    this.at = this.deps.clock.now();
    if (!this.stopSeen && await this.deps.store.isStopRequested(this.key)) {
      this.stopSeen = true;
      this.loop.push({ type: 'stop' });
    }
    const pending = (await this.deps.controls?.pending(this.key)) ?? [];
    for (const c of pending) this.loop.push(c.observation);
    return pending.map((c) => c.id);
  }
}

/** An inbox of observations with a wake-up that fires on the first push or a timeout. */
class Loop {
  private inbox: Observation[] = [];
  private wakeUp: (() => void) | undefined;

  push(o: Observation): void {
    this.inbox.push(o);
    this.wakeUp?.();
  }

  /** Woken by an observation (rather than a timer or the first turn). */
  busy(): boolean {
    return this.inbox.length > 0;
  }

  take(): Observation[] {
    return this.inbox.splice(0);
  }

  wait(timerMs: number, pollMs: number): Promise<void> {
    if (this.inbox.length > 0) return Promise.resolve();
    const ms = Math.max(0, Math.min(timerMs, pollMs));
    return new Promise((resolve) => {
      let t: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (t) clearTimeout(t);
        this.wakeUp = undefined;
        resolve();
      };
      if (Number.isFinite(ms)) t = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}

