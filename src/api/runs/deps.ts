/** What the run routers are built from (engine interfaces and ports, never adapters or classes). */
import type { LogStore } from '../../core/ports/log-store.js';
import type { DagCatalog, RunLauncher, RunManagementApi, RunQueriesApi, RunsApi, RunWaitApi } from '../../engine/services/api.js';

export interface RunsRouterDeps {
  catalog: DagCatalog;
  launcher: RunLauncher;
  runs: RunsApi;
  control: RunManagementApi;
  queries: RunQueriesApi;
  watcher: RunWaitApi;
  /** Logs and their locations (node records of run details). */
  logs: LogStore;
  /** Working directory of inline runs (POST /dag-runs), which come from no file. */
  inlineWorkingDir: string;
}
