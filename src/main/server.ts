/**
 * `svc server`: REST API + scheduler + queue processor + engine in one process (the embedded backend).
 * Areas are wired in dependency order: authentication (its policy middleware runs before every router), DAG catalog, runs (launcher, queues, scheduler), system
 * (health, metrics, monitoring, workers, webhooks, remote nodes, OpenAPI).
 */
import { logPodPolicy } from './pod-policy-log.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createApp } from '../api/app.js';
import type { Config } from '../config/config.js';
import type { EngineLogger } from '../core/ports/engine-ports.js';
import type { DagRunResource } from '../core/resources.js';
import type { DagStore } from '../core/ports/dag-store.js';
import { RunService } from '../engine/services/run-service.js';
import { embeddedBackend } from './embedded.js';
import type { Backend } from './backend.js';
import { startAdmission } from './server/admission.js';
import { wireAuth } from './server/auth.js';
import { RunEvents, type AreaParts, type ServerBase } from './server/base.js';
import { wireDags } from './server/dags.js';
import { wireEvents } from './server/events.js';
import { wireRuns } from './server/runs.js';
import { wireSystem } from './server/system.js';
import { wireTerminal } from './server/terminal.js';
import { uiRouter } from './server/ui.js';

export interface RunningServer {
  url: string;
  /** The express app (route introspection in tests). */
  app: Express;
  /** The kubernetes backend's namespace. */
  namespace?: string;
  /** Where the admission webhook listens (TLS), when it does. */
  admissionPort?: number;
  /** The DAG store this server reads (an embedding program, or a test, writes DAGs it sees at once). */
  dagStore: DagStore;
  close(): Promise<void>;
}

/** Makes the backend the configuration names; `onChange` sees every saved change of a run. */
async function makeBackend(config: Readonly<Config>, log: EngineLogger, onChange: (run: DagRunResource) => void): Promise<Backend> {
  if (config.backend === 'embedded') return embeddedBackend(config, log, { onChange });
  return (await import('./kubernetes.js')).kubernetesBackend(config, log, { onChange });
}

export async function startServer(config: Readonly<Config>, log: EngineLogger): Promise<RunningServer> {
  const events = new RunEvents();
  const backend = await makeBackend(config, log, (run) => events.emit(run));
  // Whatever has started so far is stopped again when a later part fails: a failed start never hangs.
  const started: Array<() => Promise<void>> = [() => backend.close()];
  try {
    return await startOn(backend, events, config, log, started);
  } catch (e) {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    throw e;
  }
}

async function startOn(backend: Backend, events: RunEvents, config: Readonly<Config>, log: EngineLogger, started: Array<() => Promise<void>>): Promise<RunningServer> {
  const engine = backend.engine;
  const base: ServerBase = { config, log, backend, engine, runs: new RunService(engine), events, startedAt: Date.now() };
  const auth = await wireAuth(base);
  const dags = await wireDags(base);
  const runs = await wireRuns(base, dags);
  const system = await wireSystem(base, dags, runs, auth);
  const areas: AreaParts[] = [auth, dags, runs, system, wireEvents(base), await wireTerminal(base, auth)];
  const app = createApp({
    log, allowedHosts: config.allowedHosts, ownOrigins: config.auth.oidc ? [new URL(config.auth.oidc.clientUrl).origin] : [], routers: areas.flatMap((a) => a.routers),
    authenticate: auth.before ?? [], before: areas.filter((a) => a !== auth).flatMap((a) => a.before ?? []),
    // The web UI last: every other root route (OIDC callback, /api/v1) answers first.
    rootRouters: [...areas.flatMap((a) => a.rootRouters ?? []), uiRouter()],
  });
  const server = await listen(app, config.host, config.port);
  const stopHttp = () => closeHttp(server);
  started.push(stopHttp);
  for (const a of areas) a.attach?.(server);
  const addr = server.address() as AddressInfo;
  const url = `http://${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`;
  for (const a of areas) {
    await a.start?.();
    started.push(async () => { await a.stop?.(); });
  }
  const admission = config.webhookCertDir
    ? await startAdmission({ certDir: config.webhookCertDir, host: config.host, port: config.webhookPort, dags: dags.service })
    : undefined;
  logPodPolicy(config.podPolicy, log);
  log.info('Started server', { url, backend: backend.name, ...(backend.name === 'embedded' ? { dataDir: config.dataDir, dagsDir: config.dagsDir } : { namespace: backend.namespace }) });
  return {
    url,
    app,
    ...(backend.namespace ? { namespace: backend.namespace } : {}),
    ...(admission ? { admissionPort: admission.port } : {}),
    dagStore: backend.dags,
    async close() {
      await admission?.close();
      for (const a of [...areas].reverse()) await a.stop?.();
      // The HTTP server first (no request reaches a closed store), then the backend.
      await stopHttp();
      await backend.close();
    },
  };
}

/** No new connections; idle ones now; requests still in flight (start-sync waits up to a day) after a grace. */
async function closeHttp(server: Server): Promise<void> {
  const closed = new Promise<void>((res) => server.close(() => res()));
  server.closeIdleConnections();
  const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(grace);
}

/** How long a stopping server lets requests in flight finish. */
const SHUTDOWN_GRACE_MS = 3000;

function listen(app: ReturnType<typeof createApp>, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}
