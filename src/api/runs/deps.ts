/** What the run routers are built from (engine services and ports, never adapters). */
import type { ArtifactStore } from '../../core/ports/engine-ports.js';
import type { LogPageReader } from '../../core/ports/log-pages.js';
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
  logs: LogPageReader;
  /** Working directory of inline runs (POST /dag-runs), which come from no file. */
  inlineWorkingDir: string;
  /** For node records (log paths) of run details. */
  artifacts: ArtifactStore;
}
