/** The DAG management routers (SPEC 4.3), in route order: the collection paths before /dags/:fileName. */
import type { Router } from 'express';
import { collectionRouter } from './collection.js';
import { dagRouter } from './dag.js';
import type { DagsRouterDeps } from './deps.js';
import { dagRunsRouter } from './runs.js';

export type { DagsRouterDeps } from './deps.js';

export function dagsRouters(deps: DagsRouterDeps): Router[] {
  return [collectionRouter(deps), dagRouter(deps), dagRunsRouter(deps)];
}
