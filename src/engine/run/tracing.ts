/**
 * Exports a run's spans (trace-spans.ts) through `deps.tracer` when its DAG's `otel` block is enabled,
 * on the side, like the notification mails (notify.ts): the driver hands over each turn's finished
 * executions and started ones, and at the end the run itself; nothing here waits on the network while
 * the run runs. A run whose DAG has no `otel` block traces as its caller does (a sub-DAG run of a
 * traced run is traced, into the same trace, to the caller's endpoint as the caller expanded it; a run
 * resumed by another driver reads the caller's block and expands it in its own environment);
 * `enabled: false` stops that. Export failures are warnings
 * in the engine's log (the first one of the run, then a count at the end); the end of a run waits for
 * its last spans at most the block's `timeout`. The SDK is loaded only by a run that traces.
 */
import type { RunTrace, SpanRecord, TraceExport } from '../../core/ports/run-tracer.js';
import type { DagRunResource } from '../../core/resources.js';
import { execKey, findNode, stepOf, type Effect, type ExecRef, type Observation } from '../../core/run/state.js';
import type { OtelConfig } from '../../core/spec/types.js';
import { DEFAULT_MAX_CALL_DEPTH } from '../../core/spec/calls.js';
import { expandVars } from '../../core/vars/expand.js';
import { maskSecrets } from '../../core/vars/mask.js';
import type { EngineDeps } from '../deps.js';
import type { RunContext } from './run-context.js';
import { childRunId } from './subdag.js';
import { execSpan, runSpan, traceExportOf } from './trace-spans.js';

/** Beyond the export's own timeout, what the end of a run grants a stuck exporter before it lets go. */
const CLOSE_MARGIN_MS = 1000;

/**
 * The export targets traced runs hand to the sub-DAG runs they call, by the child's run id: one per
 * driver (a sub-DAG run is driven by its caller's driver). A child that finds none here (driven by
 * another process, or after a restart) falls back to reading its caller's block.
 */
export class CallerTraces {
  private readonly byChild = new Map<string, Promise<TraceExport | undefined>>();

  offer(childRunId: string, target: Promise<TraceExport | undefined>): void {
    this.byChild.set(childRunId, target);
  }

  take(runId: string): Promise<TraceExport | undefined> | undefined {
    const t = this.byChild.get(runId);
    this.byChild.delete(runId);
    return t;
  }

  drop(childRunIds: Iterable<string>): void {
    for (const id of childRunIds) this.byChild.delete(id);
  }
}

export class RunTracing {
  /** Undefined: this run is not traced. Resolves to undefined when it turns out not to be (or cannot be). */
  private readonly trace: Promise<Opened | undefined> | undefined;
  private readonly starts = new Map<string, number>();
  /** Sub-DAG runs offered this run's target (dropped at the end, whether they took it or not). */
  private readonly offered = new Set<string>();
  private run: DagRunResource;
  private failures = 0;
  /** The span of the run covers its executions' (their times are read a moment after the run's). */
  private span = { first: Infinity, last: -Infinity };

  constructor(private readonly deps: EngineDeps, first: DagRunResource, private readonly ctx: RunContext, private readonly callers: CallerTraces) {
    this.run = first;
    const otel = first.spec.definition.otel;
    const maybe = otel ? otel.enabled : first.spec.parent !== undefined;
    this.trace = deps.tracer && maybe ? this.open().catch((e: unknown) => this.failedToOpen(e)) : undefined;
  }

  /** One turn: the executions its effects start, and the executions its observations report finished. */
  turn(observations: Observation[], effects: Effect[], run: DagRunResource): void {
    if (!this.trace) return;
    this.run = run;
    const now = this.deps.clock.now();
    for (const e of effects) if (e.kind === 'exec' && !this.starts.has(execKey(e.exec))) this.started(e.exec, now);
    for (const o of observations) {
      if (o.type !== 'execFinished') continue;
      const node = findNode(run.spec.definition, run.status.run, o.exec.node);
      if (!node) continue;
      const key = execKey(o.exec);
      // An execution this driver did not start (adopted after a crash) began when its node did.
      const startMs = this.starts.get(key) ?? (Date.parse(node.startedAt) || now);
      this.starts.delete(key);
      this.span = { first: Math.min(this.span.first, startMs), last: Math.max(this.span.last, now) };
      this.record(execSpan({ run, node, exec: o.exec, result: o.result, startMs, endMs: now }, this.mask));
    }
  }

  /** The run has ended (its end is saved): its span, then the flush of everything, within the bound. */
  async close(final: DagRunResource): Promise<void> {
    if (!this.trace) return;
    this.callers.drop(this.offered);
    const now = this.deps.clock.now();
    const s = final.status.run;
    const startMs = Math.min(Date.parse(s.startedAt) || now, this.span.first);
    this.record(runSpan(final, startMs, Math.max(Date.parse(s.finishedAt) || now, this.span.last), this.mask));
    const opened = await this.trace;
    if (!opened) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), opened.target.timeoutMs + CLOSE_MARGIN_MS); });
    const how = await Promise.race([opened.trace.close().then(() => 'done' as const, () => 'done' as const), bound]);
    clearTimeout(timer);
    if (how === 'late') this.warn(opened.target, `the exporter did not finish within ${opened.target.timeoutMs + CLOSE_MARGIN_MS} ms`);
    if (this.failures > 1) this.deps.log.warn('Failed to export traces, repeatedly', { ...this.fields(opened.target), failures: this.failures });
  }

  private readonly mask = (s: string): string => maskSecrets(s, this.ctx.secretValues);

  /** An execution starts; one that calls a sub-DAG offers the child run this run's export target. */
  private started(exec: ExecRef, now: number): void {
    this.starts.set(execKey(exec), now);
    const node = findNode(this.run.spec.definition, this.run.status.run, exec.node);
    if (!node || stepOf(this.run.spec.definition, node)?.call === undefined) return;
    const child = childRunId(this.run, exec);
    this.offered.add(child);
    this.callers.offer(child, this.trace!.then((o) => o?.target));
  }

  private record(span: SpanRecord): void {
    void this.trace!.then((o) => o?.trace.record(span));
  }

  private async open(): Promise<Opened | undefined> {
    const target = await this.target();
    if (!target) return undefined;
    const trace = await this.deps.tracer!.open(target, (reason) => {
      this.failures += 1;
      if (this.failures === 1) this.warn(target, reason);
    });
    return { target, trace };
  }

  /** The run's own block; else the target its caller offered; else the nearest caller's block. */
  private async target(): Promise<TraceExport | undefined> {
    const offered = this.run.spec.definition.otel === undefined ? this.callers.take(this.run.spec.dagRunId) : undefined;
    if (offered) return offered;
    const otel = await this.effectiveOtel();
    if (!otel?.enabled) return undefined;
    const lookup = this.ctx.lookup(await this.ctx.stepEnv(undefined, this.run.status.run, []));
    return traceExportOf(otel, (s) => expandVars(s, lookup), this.mask);
  }

  /** The run's own block, else the nearest caller's (read up the parent references). */
  private async effectiveOtel(): Promise<OtelConfig | undefined> {
    let otel = this.run.spec.definition.otel;
    let ref = this.run.spec.parent;
    for (let hops = 0; otel === undefined && ref && hops < (this.deps.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH); hops++) {
      const up = await this.deps.store.get({ dagName: ref.name, dagRunId: ref.dagRunId });
      otel = up?.spec.definition.otel;
      ref = up?.spec.parent;
    }
    return otel;
  }

  private failedToOpen(e: unknown): undefined {
    this.deps.log.warn('Failed to set up trace export', { dag: this.run.spec.dagName, dagRunId: this.run.spec.dagRunId, error: this.mask(e instanceof Error ? e.message : String(e)) });
    return undefined;
  }

  private warn(target: TraceExport, reason: string): void {
    const hide = (s: string): string => maskSecrets(this.mask(s), Object.values(target.headers));
    this.deps.log.warn('Failed to export traces', { ...this.fields(target), error: hide(reason) });
  }

  private fields(target: TraceExport): Record<string, unknown> {
    return { dag: this.run.spec.dagName, dagRunId: this.run.spec.dagRunId, endpoint: maskSecrets(this.mask(target.url), Object.values(target.headers)) };
  }
}

interface Opened {
  target: TraceExport;
  trace: RunTrace;
}
