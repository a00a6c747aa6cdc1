/** What the DAG routers are built from (ports and services, never adapters). */
import type { ArtifactStore } from '../../core/ports/engine-ports.js';
import type { DagHistory } from '../../engine/dag-history.js';
import type { DagService } from '../../engine/dag-service.js';

export interface DagsRouterDeps {
  dags: DagService;
  history: DagHistory;
  /** For the node records of a run detail (log paths). */
  artifacts: ArtifactStore;
}
