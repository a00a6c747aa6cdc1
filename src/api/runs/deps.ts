/** What the run routers are built from (engine services and ports, never adapters). */
import type { LogStore } from '../../core/ports/log-store.js';
import type { DagCatalog } from '../../engine/catalog.js';
import type { LaunchService } from '../../engine/launch-service.js';
import type { RunControl } from '../../engine/run-control.js';
import type { RunQueries } from '../../engine/run-queries.js';
import type { RunService } from '../../engine/run-service.js';
import type { RunWatcher } from '../../engine/run-watcher.js';

export interface RunsRouterDeps {
  catalog: DagCatalog;
  launcher: LaunchService;
  runs: RunService;
  control: RunControl;
  queries: RunQueries;
  watcher: RunWatcher;
  /** Logs and their locations (node records of run details). */
  logs: LogStore;
  /** Working directory of inline runs (POST /dag-runs), which come from no file. */
  inlineWorkingDir: string;
}
