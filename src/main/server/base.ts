/** What every area of the server is wired from. */
import type { Config } from '../../config/config.js';
import type { EngineLogger } from '../../core/ports/engine-ports.js';
import type { DagRunResource } from '../../core/resources.js';
import type { EngineDeps } from '../../engine/deps.js';
import type { Backend } from '../backend.js';
import type { RunService } from '../../engine/services/run-service.js';
import type { Server } from 'node:http';
import type { Router, RequestHandler } from 'express';

/** Fan-out of run changes (every saved status): metrics, caches, waiters of start-sync. */
export class RunEvents {
  private readonly listeners = new Set<(run: DagRunResource) => void>();
  on(fn: (run: DagRunResource) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
  emit(run: DagRunResource): void {
    for (const fn of this.listeners) {
      try { fn(run); } catch { /* a listener never breaks the engine */ }
    }
  }
}

export interface ServerBase {
  config: Readonly<Config>;
  log: EngineLogger;
  backend: Backend;
  /** backend.engine */
  engine: EngineDeps;
  runs: RunService;
  events: RunEvents;
  startedAt: number;
}

/** What an area contributes: routers under /api/v2, optional pre-handlers, background services. */
export interface AreaParts {
  routers: Router[];
  before?: RequestHandler[];
  /** Routers mounted at the root, outside /api/v2 (the OIDC callback, the legacy v1 404). */
  rootRouters?: Router[];
  /** Called once the HTTP server listens (the web terminal takes its WebSocket upgrades). */
  attach?(server: Server): void;
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}
