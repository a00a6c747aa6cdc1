/** What the DAG routers are built from (ports and services, never adapters). */
import type { LogStore } from '../../core/ports/log-store.js';
import type { DagHistory } from '../../engine/dag-history.js';
import type { DagService } from '../../engine/dag-service.js';

export interface DagsRouterDeps {
  dags: DagService;
  history: DagHistory;
  /** For the records of runs (where their logs are). */
  logs: LogStore;
}
