/** The run routers (SPEC 4.4, 4.5, 3.3 approvals). */
import type { Router } from 'express';
import { approvalRouter } from './approval.js';
import type { RunsRouterDeps } from './deps.js';
import { logsRouter } from './logs.js';
import { manageRouter } from './manage.js';
import { resultsRouter } from './results.js';
import { startRouter } from './start.js';

export type { RunsRouterDeps } from './deps.js';

export function runsRouters(deps: RunsRouterDeps): Router[] {
  return [startRouter(deps), manageRouter(deps), logsRouter(deps), resultsRouter(deps), approvalRouter(deps)];
}
