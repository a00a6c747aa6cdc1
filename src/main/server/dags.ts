/** Wiring of the DAG area (SPEC 4.3): the DAG store and catalog, and the DAG management router. */
import { dagsRouters } from '../../api/dags/index.js';
import type { DagStore } from '../../core/ports/dag-store.js';
import type { DagCatalog } from '../../engine/services/catalog.js';
import { StoreDagCatalog } from '../../engine/services/dag-catalog.js';
import { DagHistory } from '../../engine/services/dag-history.js';
import { DagService } from '../../engine/services/dag-service.js';
import type { AreaParts, ServerBase } from './base.js';
import type { DagDefinition } from '../../core/spec/types.js';
import { dagPolicyProblems } from '../../core/spec/pod-policy.js';

export interface DagsArea extends AreaParts {
  catalog: DagCatalog;
  /** DAGs (embedded: the DAGs directory and suspend flags under the data directory; kubernetes: Dag resources). */
  store: DagStore;
  /** Create, edit, delete, rename, suspend, validate, search, tags. */
  service: DagService;
  /** Latest run per DAG (cached), recent runs, stop-all. */
  history: DagHistory;
}

export async function wireDags(base: ServerBase): Promise<DagsArea> {
  const store = base.backend.dags;
  const catalog = new StoreDagCatalog(store);
  // The pod policy on both backends: a DAG means the same wherever it is validated (svc validate too).
  const limits = (def: DagDefinition): string[] => {
    const backend = base.backend.dagLimits?.(def);
    return [...dagPolicyProblems(def, base.config.podPolicy), ...(backend ? [backend] : [])];
  };
  const service = new DagService(store, catalog, (name) => base.engine.dags.find(name), limits);
  const history = new DagHistory(base.runs, base.engine.store, base.engine.clock);
  base.events.on((run) => history.invalidate(run.spec.dagName));
  return {
    catalog, store, service, history,
    routers: dagsRouters({
      dags: service, history, logs: base.engine.logs, clock: base.engine.clock, ...(base.config.tz ? { tz: base.config.tz } : {}),
    }),
    // Parse every DAG once at start, in the background: the first GET /dags is then as fast as the next.
    start: () => {
      catalog.list().catch((e: unknown) => base.log.warn('Failed to preload DAG files', { error: String(e) }));
    },
  };
}
