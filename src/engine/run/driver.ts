/**
 * The embedded run driver: the one writer of a run's status while it runs. It keeps the run in memory,
 * takes a turn (turn.ts nextTurn) on each wake-up, writes the new state behind with compare-and-swap,
 * then applies the effects. Event-driven: a finished execution, a stop
 * request and an approval wake the loop at once; timers only for retry/repeat intervals and timeouts
 * (and a slow resync of the requests, in case a notification was lost).
 * After a crash, driving the same run again adopts executions still running (or reports them
 * interrupted) and finishes the rest: a run is never left running forever.
 */
import type { Observation, RunState } from '../../core/run/state.js';
import { liveExecs, isResolving } from '../../core/run/context.js';
import { RunStatus, isRunTerminal } from '../../core/run/status.js';
import type { RunKey } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import { NotFoundError } from '../../core/errors.js';
import type { EngineDeps } from '../deps.js';
import { DomainError } from '../../core/errors.js';
import { EffectApplier } from './effects.js';
import { prepareRunContext } from './run-context.js';
import { RunLogWriter } from './run-log.js';
import { nextTurn } from './turn.js';
import { RunNotices } from './notify.js';
import { CallerTraces, RunTracing } from './tracing.js';
import { StatusWriter } from './status-writer.js';
import { runLog } from '../../core/ports/log-store.js';
import type { ResolvedParams } from '../../core/vars/params.js';
import type { EnvEntry } from '../../core/spec/types.js';

/** A run driven to its end, and its params as evaluated by the driver (none when it had ended before). */
export interface DrivenRun {
  run: DagRunResource;
  params?: ResolvedParams;
}

export class RunDriver {
  private readonly callerTraces = new CallerTraces();

  constructor(private readonly deps: EngineDeps) {}

  /** Drives the run to a terminal status and returns the final resource. */
  async drive(key: RunKey): Promise<DagRunResource> {
    return (await this.driveRun(key)).run;
  }

  /**
   * As drive, with the run's params as they were evaluated when it was driven (none when it had ended
   * already). `systemEnv`: a sub-DAG run's environment, its parent's childEnv (a root run has the service's);
   * `secrets`: the secrets its caller passes it (by reference in its params, ADR 0028).
   */
  async driveRun(key: RunKey, systemEnv?: Record<string, string>, secrets?: EnvEntry[]): Promise<DrivenRun> {
    const run = await this.deps.store.get(key);
    if (!run) throw new NotFoundError(`dag-run ${key.dagRunId} of ${key.dagName} not found`);
    if (isRunTerminal(run.status.run.status)) return { run: await this.released(key, run) };
    if (!(await this.deps.ownership.acquire(key))) {
      throw new DomainError('already_running', `dag-run ${key.dagRunId} of ${key.dagName} is driven by ${(await this.deps.ownership.holder(key)) ?? 'another process'}`);
    }
    const writer = new StatusWriter(this.deps, run);
    let ctx;
    try {
      ctx = await prepareRunContext(run, this.deps, systemEnv, secrets);
    } catch (e) {
      return { run: await this.released(key, await this.failEarly(run, writer, e instanceof Error ? e.message : String(e))) };
    }
    const loop = new Loop();
    const resumed = run.status.run.status !== RunStatus.NotStarted && run.status.run.status !== RunStatus.Queued;
    const applier = new EffectApplier(this.deps, run, ctx, (o) => loop.push(o), (k, env, passed) => this.driveRun(k, env, passed), resumed);
    if (resumed) await this.resume(run, applier);
    const requests = new Requests(this.deps, key, loop);
    const unwatch = this.deps.events.watch(key, () => requests.wake());
    const log = runLog(key, run.status.attemptId);
    const runLogWriter = new RunLogWriter((text) => this.deps.logs.append(log, text), this.deps.clock);
    const notices = new RunNotices(this.deps, ctx);
    const tracing = new RunTracing(this.deps, run, ctx, this.callerTraces);
    try {
      await this.advance(run, { key, loop, requests, writer, applier, runLog: runLogWriter, notices, tracing });
    } finally {
      unwatch();
    }
    await runLogWriter.flush();
    const final = await writer.flush();
    await Promise.all([notices.settled(), tracing.close(final)]);
    return { run: await this.released(key, final), params: ctx.params };
  }

  /** The run has ended and its end is saved: nobody needs to own it any more. */
  private async released(key: RunKey, run: DagRunResource): Promise<DagRunResource> {
    await this.deps.ownership.release(key);
    return run;
  }

  /** Turns until the run is terminal and nothing of it runs any more. */
  private async advance(first: DagRunResource, t: Turning): Promise<void> {
    let run = first;
    let saved = false;
    for (;;) {
      const controls = await t.requests.read();
      const seen = t.loop.take();
      const d = nextTurn(run, seen, this.deps.clock.now());
      const prev = run;
      if (d.changed) {
        run = d.run;
        if (d.effects.some((e) => e.kind === 'finished')) await t.applier.finish(run);
        t.writer.put(run.status);
        this.deps.onState?.(run);
        t.runLog.add(d.lines);
      }
      // Durable first: the first state, an acknowledged approval, effects whose start is not recorded on its own.
      if (!saved || controls.length > 0 || t.applier.needsDurableState(d.effects)) {
        await t.writer.flush();
        saved = true;
      }
      if (controls.length > 0) await this.deps.controls?.ack(t.key, controls);
      t.applier.setRun(run);
      t.tracing.turn(seen, d.effects, run);
      await t.applier.applyAll(d.effects);
      // After the effects: the end of a run is mailed once its final state is saved (finished is durable).
      if (d.changed) t.notices.observe(prev, run);
      if (isRunTerminal(run.status.run.status) && t.applier.liveCount() === 0) return;
      await t.loop.wait(d.wakeAt ? Date.parse(d.wakeAt) - this.deps.clock.now() : Infinity, t.requests.resyncInMs());
    }
  }

  /** A run that cannot even start (a secret that cannot be read, ...) fails with the reason (and mails it). */
  private async failEarly(run: DagRunResource, writer: StatusWriter, error: string): Promise<DagRunResource> {
    const now = new Date(this.deps.clock.now()).toISOString();
    const state: RunState = { ...run.status.run, status: RunStatus.Failed, stage: 'done', error, startedAt: run.status.run.startedAt || now, finishedAt: now };
    this.deps.log.error('Failed to start dag-run', { dag: run.spec.dagName, dagRunId: run.spec.dagRunId, error });
    writer.put({ ...run.status, run: state });
    const failed = await writer.flush();
    // No run context: the mail blocks expand with the service's environment only.
    const notices = new RunNotices(this.deps, undefined);
    notices.observe(run, failed);
    await notices.settled();
    return failed;
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

interface Turning {
  key: RunKey;
  loop: Loop;
  requests: Requests;
  writer: StatusWriter;
  applier: EffectApplier;
  runLog: RunLogWriter;
  notices: RunNotices;
  tracing: RunTracing;
}

/** However quiet the notifications, the requests are read again this often (a lost notification). */
const RESYNC_MS = 10_000;

/**
 * Stop requests and approval decisions, recorded by any process: read on the first turn, whenever
 * RunEvents wakes the run, and on the slow resync. Level-triggered: what is read is what is pending.
 */
class Requests {
  private woken = true;
  private readAt = -Infinity;
  private stopSeen = false;

  constructor(private readonly deps: EngineDeps, private readonly key: RunKey, private readonly loop: Loop) {}

  wake(): void {
    this.woken = true;
    this.loop.poke();
  }

  /** How long the loop may sleep before the requests are read again regardless. */
  resyncInMs(): number {
    return Math.max(0, this.readAt + (this.deps.resyncMs ?? RESYNC_MS) - this.deps.clock.now());
  }

  /** When due: a stop becomes an observation; approvals are fed too, and their ids returned (acknowledged once saved). */
  async read(): Promise<string[]> {
    if (!this.woken && this.resyncInMs() > 0) return [];
    this.woken = false;
    this.readAt = this.deps.clock.now();
    if (!this.stopSeen && await this.deps.store.isStopRequested(this.key)) {
      this.stopSeen = true;
      this.loop.push({ type: 'stop' });
    }
    const pending = (await this.deps.controls?.pending(this.key)) ?? [];
    for (const c of pending) this.loop.push(c.observation);
    return pending.map((c) => c.id);
  }
}

/** An inbox of observations with a wake-up that fires on the first push, a poke, or a timeout. */
class Loop {
  private inbox: Observation[] = [];
  private poked = false;
  private wakeUp: (() => void) | undefined;

  push(o: Observation): void {
    this.inbox.push(o);
    this.wakeUp?.();
  }

  /** Wakes the loop without an observation (something is to be read). */
  poke(): void {
    this.poked = true;
    this.wakeUp?.();
  }

  take(): Observation[] {
    return this.inbox.splice(0);
  }

  wait(timerMs: number, resyncMs: number): Promise<void> {
    if (this.inbox.length > 0 || this.poked) {
      this.poked = false;
      return Promise.resolve();
    }
    const ms = Math.max(0, Math.min(timerMs, resyncMs));
    return new Promise((resolve) => {
      let t: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (t) clearTimeout(t);
        this.wakeUp = undefined;
        this.poked = false;
        resolve();
      };
      if (Number.isFinite(ms)) t = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
