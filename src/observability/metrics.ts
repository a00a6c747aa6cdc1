/**
 * The metrics of SPEC 4.1 on a registry of their own (never prom-client's global one), plus the
 * default Node.js runtime and process metrics. Gauges are computed at scrape time from a run census;
 * svc_dag_runs_total_by_dag and the two histograms are fed by run events (a run counted once per
 * attempt when it reaches a terminal status; queue wait once per run when it leaves the queue).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DagRunResource } from '../core/resources.js';
import { RunStatus, isRunTerminal, runStatusLabel } from '../core/run/status.js';
import { isActiveRun, isQueuedRun, isRootRun, startOfDay, type CensusSnapshot } from './run-census.js';

export const CACHE_NAMES = ['dag_definition', 'dag_run_status', 'api_key', 'webhook'] as const;
export type CacheName = (typeof CACHE_NAMES)[number];

/** The run statuses metric labels use (SPEC 3.1). */
const STATUS_LABELS = ['succeeded', 'failed', 'aborted', 'running', 'queued', 'not_started', 'partially_succeeded'];
const DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];
const QUEUE_WAIT_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600];
/** How many run identities the once-only bookkeeping remembers. */
const SEEN_LIMIT = 20_000;

export interface MetricsSources {
  version: string;
  buildDate: string;
  startedAt: number;
  now(): number;
  schedulerRunning(): boolean;
  dagsTotal(): Promise<number>;
  census(): Promise<CensusSnapshot>;
  cacheEntries(): Record<CacheName, number>;
}


class OnceSet {
  private readonly keys = new Set<string>();
  /** True the first time a key is seen. */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > SEEN_LIMIT) this.keys.delete(this.keys.values().next().value as string);
    return true;
  }
}

export class SvcMetrics {
  readonly registry = new Registry();
  private snap: CensusSnapshot = { at: 0, runs: [] };
  private dags = 0;
  private readonly finished = new OnceSet();
  private readonly dequeued = new OnceSet();
  private readonly byDag: Counter<'dag' | 'status'>;
  private readonly duration: Histogram<'dag'>;
  private readonly queueWait: Histogram<'dag'>;

  constructor(private readonly src: MetricsSources) {
    const r = this.registry;
    collectDefaultMetrics({ register: r });
    const gauge = (name: string, help: string, collect: (g: Gauge<string>) => void, labelNames: string[] = []) =>
      new Gauge({ name, help, labelNames, registers: [r], collect() { collect(this); } });
    gauge('svc_info', 'Build information (go_version holds the Node.js version)', (g) =>
      g.set({ version: src.version, build_date: src.buildDate, go_version: process.version }, 1), ['version', 'build_date', 'go_version']);
    gauge('svc_uptime_seconds', 'Seconds since the server started', (g) => g.set(Math.floor((src.now() - src.startedAt) / 1000)));
    gauge('svc_scheduler_running', '1 when the scheduler runs', (g) => g.set(src.schedulerRunning() ? 1 : 0));
    gauge('svc_dags_total', 'DAG files in the DAGs directory', (g) => g.set(this.dags));
    gauge('svc_dag_runs_currently_running', 'Root runs running or waiting for approval', (g) => g.set(this.roots(isActiveRun).length));
    gauge('svc_dag_runs_queued_total', 'Root runs waiting in a queue', (g) => g.set(this.roots(isQueuedRun).length));
    gauge('svc_dag_runs_currently_running_by_dag', 'Running root runs per DAG', (g) => this.perDag(g, isActiveRun), ['dag']);
    gauge('svc_dag_runs_queued_by_dag', 'Queued root runs per DAG', (g) => this.perDag(g, isQueuedRun), ['dag']);
    new Counter({
      name: 'svc_dag_runs_total', help: 'Root runs created since local midnight, by status (daily window)', labelNames: ['status'],
      registers: [r], collect: () => this.daily(),
    });
    this.byDag = new Counter({ name: 'svc_dag_runs_total_by_dag', help: 'Runs finished since the server started, by DAG and status', labelNames: ['dag', 'status'], registers: [r] });
    this.duration = new Histogram({ name: 'svc_dag_run_duration_seconds', help: 'Run duration from start to finish', labelNames: ['dag'], buckets: DURATION_BUCKETS, registers: [r] });
    this.queueWait = new Histogram({ name: 'svc_queue_wait_seconds', help: 'Time from enqueue to start', labelNames: ['dag'], buckets: QUEUE_WAIT_BUCKETS, registers: [r] });
    gauge('svc_cache_entries_total', 'Entries in the in-memory caches', (g) => {
      const sizes = src.cacheEntries();
      for (const c of CACHE_NAMES) g.set({ cache: c }, sizes[c]);
    }, ['cache']);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text; scrape-time sources are read once per scrape. */
  async render(): Promise<string> {
    [this.snap, this.dags] = await Promise.all([this.src.census(), this.src.dagsTotal()]);
    return this.registry.metrics();
  }

  /** Feeds the event-driven metrics from a saved run change. */
  observe(run: DagRunResource): void {
    const s = run.status.run;
    const key = `${run.spec.dagName}/${run.spec.dagRunId}`;
    const dag = run.spec.dagName;
    if (s.status === RunStatus.Running && run.status.queuedAt && s.startedAt && this.dequeued.add(key)) {
      this.queueWait.observe({ dag }, seconds(run.status.queuedAt, s.startedAt));
    }
    if (!isRunTerminal(s.status) || !this.finished.add(`${key}/${run.status.attemptId}`)) return;
    this.byDag.inc({ dag, status: runStatusLabel(s.status) });
    if (s.startedAt && s.finishedAt) this.duration.observe({ dag }, seconds(s.startedAt, s.finishedAt));
  }

  private roots(pred: (r: DagRunResource) => boolean): DagRunResource[] {
    return this.snap.runs.filter((r) => isRootRun(r) && pred(r));
  }

  private perDag(g: Gauge<string>, pred: (r: DagRunResource) => boolean): void {
    g.reset();
    const counts = new Map<string, number>();
    for (const r of this.roots(pred)) counts.set(r.spec.dagName, (counts.get(r.spec.dagName) ?? 0) + 1);
    for (const [dag, n] of counts) g.set({ dag }, n);
  }

  private daily(): void {
    const c = this.registry.getSingleMetric('svc_dag_runs_total') as Counter<'status'>;
    const since = startOfDay(this.src.now());
    const counts = new Map<string, number>(STATUS_LABELS.map((l) => [l, 0]));
    for (const r of this.roots(() => true)) {
      if (Date.parse(r.metadata.creationTimestamp) < since) continue;
      const label = runStatusLabel(r.status.run.status);
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
    c.reset();
    for (const [status, n] of counts) c.inc({ status }, n);
  }
}

const seconds = (from: string, to: string): number => Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);
