/** Outputs and sub-DAG runs of a run (SPEC 4.5, 2.7; sub-DAG endpoints are an endpoint gap, see docs/api.md). */
import { Router } from 'express';
import { BadRequestError } from '../../core/errors.js';
import { isValidRunId } from '../../core/resources.js';
import type { RunsRouterDeps } from './deps.js';
import { runKeyParams } from './input.js';

export function resultsRouter(deps: RunsRouterDeps): Router {
  const r = Router();
  const { queries } = deps;

  r.get('/dag-runs/:name/:dagRunId/outputs', async (req, res) => {
    res.json(await queries.outputs(runKeyParams(req)));
  });

  r.get('/dag-runs/:name/:dagRunId/sub-dag-runs', async (req, res) => {
    res.json({ subRuns: await queries.subRuns(runKeyParams(req)) });
  });

  r.get('/dag-runs/:name/:dagRunId/sub-dag-runs/:subDAGRunId/spec', async (req, res) => {
    const key = runKeyParams(req);
    const sub = req.params.subDAGRunId;
    if (typeof sub !== 'string' || !isValidRunId(sub)) throw new BadRequestError(`invalid subDAGRunId ${JSON.stringify(String(sub).slice(0, 80))}`);
    res.json(await queries.subRunSpec(key, sub));
  });

  return r;
}
