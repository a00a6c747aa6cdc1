/** Wiring of the system area (SPEC 4.1, 4.7, 4.8): health, metrics, monitoring, workers, webhooks, remote nodes. */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { RecordWebhookStore } from '../../auth/stores/webhook-records.js';
import { HttpForwarder } from '../../adapters/remote/http-forwarder.js';
import { createHealthRouter } from '../../api/system/health.js';
import { createMetricsRouter } from '../../api/system/metrics.js';
import { createOpenApiRouter } from '../../api/system/openapi.js';
import { remoteNodeHandler } from '../../api/system/remote-node.js';
import { createResourceHistoryRouter } from '../../api/system/resources.js';
import { createWebhookRouter } from '../../api/system/webhooks.js';
import { webhookLifecycle } from '../../api/system/webhook-lifecycle.js';
import { createWorkersRouter, healthOf, type Worker } from '../../api/system/workers.js';
import { WebhookService } from '../../auth/webhook-service.js';
import type { DagRunResource } from '../../core/resources.js';
import { SvcMetrics } from '../../observability/metrics.js';
import { ResourceMonitor } from '../../observability/resource-monitor.js';
import { isActiveRun, RunCensus } from '../../observability/run-census.js';
import type { AreaParts, ServerBase } from './base.js';
import type { DagsArea } from './dags.js';
import { openApiLoader } from './openapi.js';
import type { RunsArea } from './runs.js';

/** Build date of this version (svc_info{build_date}). */
export const BUILD_DATE = '2026-01-01';

/** What the system area reads from the authentication area, when there is one. */
export interface AuthCounts {
  apiKeyEntries(): number;
}

export async function wireSystem(base: ServerBase, dags: DagsArea, runs: RunsArea, auth?: AuthCounts): Promise<AreaParts> {
  const { config, engine } = base;
  const now = () => Date.now();
  const census = new RunCensus(engine.store, now);
  const webhookStore = new RecordWebhookStore(base.backend.records.webhooks);
  const webhooks = new WebhookService(webhookStore, now, randomUUID);
  const monitor = new ResourceMonitor(config.dataDir, config.monitoringIntervalMs, config.monitoringRetentionMs);
  let running = false;
  let dagEntries = 0;
  const metrics = new SvcMetrics({
    version: config.version, buildDate: BUILD_DATE, startedAt: base.startedAt, now,
    schedulerRunning: () => running,
    dagsTotal: async () => (dagEntries = (await dags.catalog.list()).entries.length),
    census: () => census.snapshot(),
    cacheEntries: () => ({ dag_definition: dagEntries, dag_run_status: census.size(), api_key: auth?.apiKeyEntries() ?? 0, webhook: webhookStore.cacheSize() }),
  });
  const unsubscribe = base.events.on((run) => metrics.observe(run));

  const routers = [
    createHealthRouter({ version: config.version, startedAt: base.startedAt, now, problem: () => base.backend.problem() }),
    createMetricsRouter({
      access: config.metrics, contentType: metrics.contentType, render: () => metrics.render(),
      unavailableReason: () => (config.authToken || config.authBasic ? undefined
        : 'metrics access is private and no credential is configured: set SVC_SERVER_METRICS=public, or SVC_AUTH_TOKEN and send it as a Bearer token'),
    }),
    createResourceHistoryRouter({ history: (ms) => monitor.history(ms), intervalMs: monitor.intervalMs, retentionMs: monitor.retentionMs }),
    createWorkersRouter({ workers: () => workers(base, census, now()) }),
    createWebhookRouter({ webhooks, catalog: dags.catalog, launcher: runs.launcher }),
    createOpenApiRouter({ document: openApiLoader(config.version) }),
  ];
  return {
    routers,
    before: [remoteNodeHandler({ nodes: config.remoteNodes, forwarder: new HttpForwarder() }), webhookLifecycle(webhooks, base.log)],
    async start() {
      await mkdir(config.dataDir, { recursive: true });
      monitor.start();
      // The scheduler runs here only where this process drives runs (on kubernetes, in the operator).
      running = base.backend.drives;
    },
    stop() {
      running = false;
      monitor.stop();
      unsubscribe();
    },
  };
}

/** The embedded backend's one worker: this process, heartbeating as it answers. */
/** The backend's workers (kubernetes: Nodes), else this process, which runs every step itself. */
async function workers(base: ServerBase, census: RunCensus, now: number): Promise<Worker[]> {
  if (!base.backend.workers) return [localWorker((await census.snapshot()).runs, now)];
  const runs = new Map((await census.snapshot()).runs.map((r) => [`${r.spec.dagName}/${r.spec.dagRunId}`, r]));
  return (await base.backend.workers()).map((w) => ({
    id: w.id, labels: w.labels,
    health_status: w.heartbeatAt ? healthOf(now - Date.parse(w.heartbeatAt)) : 'WORKER_HEALTH_STATUS_UNHEALTHY',
    last_heartbeat: w.heartbeatAt ?? '',
    running_tasks: w.running.map((t) => {
      const r = runs.get(`${t.dagName}/${t.dagRunId}`);
      return {
        dagName: t.dagName, dagRunId: t.dagRunId, rootDagRunName: r?.spec.root.name ?? t.dagName, rootDagRunId: r?.spec.root.dagRunId ?? t.dagRunId,
        parentDagRunName: r?.spec.parent?.name ?? '', parentDagRunId: r?.spec.parent?.dagRunId ?? '', startedAt: t.startedAt,
      };
    }),
  }));
}

function localWorker(all: DagRunResource[], now: number): Worker {
  return {
    id: 'local', labels: {}, health_status: healthOf(0), last_heartbeat: new Date(now).toISOString(),
    running_tasks: all.filter(isActiveRun).map((r) => ({
      dagName: r.spec.dagName, dagRunId: r.spec.dagRunId, rootDagRunName: r.spec.root.name, rootDagRunId: r.spec.root.dagRunId,
      parentDagRunName: r.spec.parent?.name ?? '', parentDagRunId: r.spec.parent?.dagRunId ?? '', startedAt: r.status.run.startedAt,
    })),
  };
}
