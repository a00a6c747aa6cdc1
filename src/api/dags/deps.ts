/** What the DAG routers are built from (ports and services, never adapters). */
import type { LogStore } from '../../core/ports/log-store.js';
import type { DagRunsApi, DagsApi } from '../../engine/services/api.js';

export interface DagsRouterDeps {
  dags: DagsApi;
  history: DagRunsApi;
  /** For the records of runs (where their logs are). */
  logs: LogStore;
}
