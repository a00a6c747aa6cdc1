/**
 * The RunLauncher of the server (SPEC 4.4, 3.3): admission checks (singleton, maxActiveRuns), run
 * creation, background driving, and the takeover of runs left behind by a previous server process.
 *
 * Admission check and creation run under a per-DAG-name lock, so two concurrent singleton starts
 * cannot both pass the check; with an AdmissionLock (EngineDeps.admission) not even in two processes. The check reads the store (not an in-memory index), so runs started by
 * other processes on the same data directory (the CLI) count too.
 */
import { DomainError } from '../../core/errors.js';
import type { LoadedDag } from '../../core/ports/engine-ports.js';
import type { RunKey } from '../../core/ports/run-store.js';
import { isSafeDagName, type DagRunResource } from '../../core/resources.js';
import { RunStatus, isRunActive, isRunTerminal } from '../../core/run/status.js';
import { dagNameProblem } from '../../core/spec/names.js';
import type { EngineDeps } from '../deps.js';
import type { AdmitOptions, Launched, RunLauncher } from './launcher.js';
import type { RunService } from './run-service.js';
import { listUnfinished, runKeyOf, runKeyText } from '../../core/ports/run-store.js';


export interface RunCounts {
  active: number;
  queued: number;
}

/** A not-started run nobody claimed for this long was accepted by a process that died before driving it. */
const UNCLAIMED_MS = 10_000;

const launched = (run: DagRunResource): Launched => ({ dagRunId: run.spec.dagRunId, dagName: run.spec.dagName });

export class LaunchService implements RunLauncher {
  private readonly inflight = new Map<string, Promise<void>>();
  /** Consecutive driver failures per run (retryLater). */
  private readonly failures = new Map<string, number>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Runs waiting for a driver slot (maxDriving), oldest first; a run is in it once. */
  private readonly waiting = new Map<string, { key: RunKey; how: 'drive' | 'resume' }>();
  private closed = false;
  /** Called with every run this launcher creates (the queue processor's index). */
  onCreated: (run: DagRunResource) => void = () => undefined;

  /**
   * `drives`: this process drives the runs it admits and takes over orphaned ones (embedded). Without
   * (the kubernetes API server), it only admits and creates them: the operator drives them.
   * `maxDriving`: at most this many runs driven at once; the others wait their turn, oldest first.
   */
  constructor(private readonly deps: EngineDeps, private readonly runs: RunService, private readonly opts: { drives: boolean; maxDriving?: number } = { drives: true }) {}

  start(dag: LoadedDag, o: AdmitOptions): Promise<Launched> {
    return this.admitted(dag, o, false);
  }

  enqueue(dag: LoadedDag, o: AdmitOptions): Promise<Launched> {
    return this.admitted(dag, o, true);
  }

  /** Drives an existing run in the background (queue processor, retry, takeover); once per run. */
  drive(key: RunKey, how: 'drive' | 'resume' = 'drive'): void {
    const k = runKeyText(key);
    if (this.inflight.has(k) || this.closed || !this.opts.drives) return;
    if (this.inflight.size >= (this.opts.maxDriving ?? Infinity)) {
      // A resume asked for later wins over a plain drive: the run may have been taken over meanwhile.
      if (!this.waiting.has(k) || how === 'resume') this.waiting.set(k, { key, how });
      return;
    }
    this.waiting.delete(k);
    const p = (how === 'resume' ? this.runs.resume(key) : this.runs.drive(key)).then(
      () => { this.failures.delete(k); },
      (e: unknown) => this.retryLater(key, e),
    ).finally(() => {
      this.inflight.delete(k);
      this.next();
    });
    this.inflight.set(k, p);
  }

  /** The oldest waiting run takes the slot that came free. */
  private next(): void {
    const first = this.waiting.values().next();
    if (first.done || this.closed) return;
    this.waiting.delete(runKeyText(first.value.key));
    this.drive(first.value.key, first.value.how);
  }

  /** How many runs wait for a driver slot (maxDriving). */
  get waitingToDrive(): number {
    return this.waiting.size;
  }

  /**
   * A driver that failed (a transient I/O error, a full disk) leaves its run active: take it over again
   * with a growing delay (5 s, 10 s, ... up to 5 tries), so it does not stay running until a restart.
   */
  private retryLater(key: RunKey, e: unknown): void {
    const k = runKeyText(key);
    const tries = (this.failures.get(k) ?? 0) + 1;
    this.failures.set(k, tries);
    const error = e instanceof Error ? e.message : String(e);
    this.deps.log.warn('Stopped driving dag-run', { dag: key.dagName, dagRunId: key.dagRunId, error, tries });
    if (tries > 5 || this.closed) return void this.failures.delete(k);
    setTimeout(() => this.drive(key, 'resume'), 5000 * tries).unref();
  }

  /** How many runs this process drives now. */
  get driving(): number {
    return this.inflight.size;
  }

  /** Driven now, or waiting for a slot to be. */
  isDriving(key: RunKey): boolean {
    const k = runKeyText(key);
    return this.inflight.has(k) || this.waiting.has(k);
  }

  /** Active (not started, running, waiting) and queued runs of a DAG name, from the store. */
  async counts(dagName: string): Promise<RunCounts> {
    const runs = await listUnfinished(this.deps.store, { dagName });
    let active = 0;
    let queued = 0;
    for (const r of runs) {
      const s = r.status.run.status;
      if (s === RunStatus.Queued) queued += 1;
      else if (!isRunTerminal(s)) active += 1;
    }
    return { active, queued };
  }

  /**
   * Server start and every maintenance tick: runs whose driver died (kill -9) are resumed; root runs accepted but never begun
   * (status not_started, no live driver) are driven. Sub-DAG runs are left to their parent's driver,
   * which adopts them when it resumes. Queued runs stay for the queue processor.
   */
  async takeOver(): Promise<number> {
    if (!this.opts.drives) return 0;
    let n = 0;
    for (const run of await listUnfinished(this.deps.store, { rootOnly: true })) {
      const key = runKeyOf(run);
      const s = run.status.run.status;
      if ((!isRunActive(s) && s !== RunStatus.NotStarted) || this.isDriving(key)) continue;
      if (isRunActive(s) && await this.runs.isOrphaned(run)) this.drive(key, 'resume');
      else if (s === RunStatus.NotStarted && await this.unclaimed(run)) this.drive(key);
      else continue;
      n += 1;
    }
    return n;
  }

  /** A run accepted but never begun: its owner is gone, or nobody claimed it for UNCLAIMED_MS. */
  private async unclaimed(run: DagRunResource): Promise<boolean> {
    const owner = await this.deps.ownership.state(runKeyOf(run));
    if (owner === 'gone') return true;
    return owner === 'none' && this.deps.clock.now() - Date.parse(run.metadata.creationTimestamp) > UNCLAIMED_MS;
  }

  /** Stops launching; waits for runs in flight at most graceMs, then lets them go (they resume after a restart). */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    if (this.inflight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inflight.values()]),
      new Promise((r) => { timer = setTimeout(r, graceMs); }),
    ]);
    if (timer) clearTimeout(timer);
  }

  private async admitted(dag: LoadedDag, o: AdmitOptions, queued: boolean): Promise<Launched> {
    if (this.closed) throw new DomainError('service_unavailable', 'the server is shutting down');
    const dagName = o.dagName ?? dag.definition.name;
    const problem = dagNameProblem(dagName ?? '') ?? (isSafeDagName(dagName) ? undefined : 'is not a usable name');
    if (problem) throw new DomainError('bad_request', `invalid dagName "${dagName}": ${problem}`);
    const checked = o.singleton || o.capacity;
    const run = await this.locked(dagName, !!checked, async () => {
      await this.admit(dag, dagName, o, queued);
      const queue = o.queue ?? dag.definition.queue;
      return this.runs.create(dag, {
        trigger: o.trigger, ...(o.params !== undefined ? { params: o.params } : {}), ...(o.dagRunId ? { dagRunId: o.dagRunId } : {}),
        ...(o.dagName ? { dagName: o.dagName } : {}), ...(o.extraEnv ? { extraEnv: o.extraEnv } : {}),
        ...(o.defaultWorkingDir ? { defaultWorkingDir: o.defaultWorkingDir } : {}), ...(queue ? { queue } : {}), queued,
      });
    });
    this.onCreated(run);
    if (!queued) this.drive(runKeyOf(run));
    return launched(run);
  }

  /** SPEC 4.4: singleton refuses an active (and for enqueue a queued) run; capacity applies maxActiveRuns. */
  private async admit(dag: LoadedDag, dagName: string, o: AdmitOptions, queued: boolean): Promise<void> {
    if (!o.singleton && !o.capacity) return;
    const c = await this.counts(dagName);
    const code = o.conflictCode ?? 'already_running';
    if (o.singleton && c.active > 0) throw new DomainError(code, `DAG ${dagName} already has an active run`, { dagName, ...c });
    if (o.singleton && queued && c.queued > 0) throw new DomainError(code, `DAG ${dagName} already has a queued run`, { dagName, ...c });
    const max = dag.definition.maxActiveRuns;
    if (o.capacity && max > 0 && c.active + c.queued >= max) {
      throw new DomainError(code, `DAG ${dagName} has reached maxActiveRuns ${max} (${c.active} active, ${c.queued} queued)`, { dagName, ...c });
    }
  }

  /**
   * Serialises check-and-create per DAG name within this process, and across processes (the
   * AdmissionLock) when there is a check to make.
   */
  private async locked<T>(name: string, checked: boolean, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(name) ?? Promise.resolve();
    const across = this.deps.admission;
    const next = prev.catch(() => undefined).then(() => (checked && across ? across.hold(name, fn) : fn()));
    this.locks.set(name, next);
    try {
      return await next;
    } finally {
      if (this.locks.get(name) === next) this.locks.delete(name);
    }
  }
}
