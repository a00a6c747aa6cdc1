/** Runs of one DAG (SPEC 4.3): history with gridData, one run's detail, stop-all. */
import { Router } from 'express';
import { DEFAULT_HISTORY_LIMIT, gridData } from '../../engine/services/dag-history.js';
import { runDetail, runSummary } from '../../engine/services/presenter.js';
import type { DagsRouterDeps } from './deps.js';
import { dagRunIdParam, fileNameParam } from './input.js';
import { queryInt } from '../input.js';

const MAX_HISTORY_LIMIT = 1000;

export function dagRunsRouter(deps: DagsRouterDeps): Router {
  const r = Router();
  const { dags, history } = deps;

  r.get('/dags/:fileName/dag-runs', async (req, res) => {
    const fileName = fileNameParam(req);
    const limit = queryInt(req, 'limit', DEFAULT_HISTORY_LIMIT, 1, MAX_HISTORY_LIMIT);
    const def = (await dags.catalog.get(fileName)).loaded.definition;
    const runs = await history.recent(def.name, limit);
    res.json({ dagRuns: runs.map((r) => runSummary(deps.logs, r)), gridData: gridData((def.steps ?? []).map((s) => s.name), runs) });
  });

  r.get('/dags/:fileName/dag-runs/:dagRunId', async (req, res) => {
    const fileName = fileNameParam(req);
    const dagRunId = dagRunIdParam(req);
    const def = (await dags.catalog.get(fileName)).loaded.definition;
    res.json({ dagRun: runDetail(deps.logs, await history.get(def.name, dagRunId)) });
  });

  r.post('/dags/:fileName/stop-all', async (req, res) => {
    const def = (await dags.catalog.get(fileNameParam(req))).loaded.definition;
    res.json({ errors: await history.stopAll(def.name) });
  });

  return r;
}
