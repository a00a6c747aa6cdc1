/** What the DAG routers are built from (ports and services, never adapters). */
import type { Clock } from '../../core/ports/clock.js';
import type { LogStore } from '../../core/ports/log-store.js';
import type { DagRunsApi, DagsApi } from '../../engine/services/api.js';

export interface DagsRouterDeps {
  dags: DagsApi;
  history: DagRunsApi;
  /** For the records of runs (where their logs are). */
  logs: LogStore;
  /** For a DAG's next scheduled start (`nextRun`): now, and the zone of entries without CRON_TZ= (config tz). */
  clock: Clock;
  tz?: string;
}
