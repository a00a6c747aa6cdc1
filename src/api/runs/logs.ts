/** Run and step logs (SPEC 4.5, 2.8 log page): head, tail, offset (1-based), limit (max 10000), stream. */
import { Router, type Request } from 'express';
import { BadRequestError, NotFoundError } from '../../core/errors.js';
import { MAX_LOG_LINES, runLog, type LogQuery } from '../../core/ports/log-store.js';
import { runKeyOf } from '../../core/ports/run-store.js';
import { stepOf } from '../../core/run/state.js';
import { nodeLog } from '../../engine/services/presenter.js';
import { queryInt, queryString } from '../input.js';
import type { RunsRouterDeps } from './deps.js';
import { runKeyParams, stepNameParam } from './input.js';

const MAX_LINE = 1_000_000_000;
const EMPTY_PAGE = { content: '', lineCount: 0, totalLines: 0, hasMore: false, isEstimate: false };

function logQuery(req: Request): LogQuery {
  const head = queryInt(req, 'head', 0, 1, MAX_LINE);
  const tail = queryInt(req, 'tail', 0, 1, MAX_LINE);
  const offset = queryInt(req, 'offset', 0, 1, MAX_LINE);
  const limit = queryInt(req, 'limit', MAX_LOG_LINES, 1, MAX_LOG_LINES);
  if ([head, tail, offset].filter((v) => v > 0).length > 1) throw new BadRequestError('give at most one of head, tail and offset');
  return { limit, ...(head ? { head } : {}), ...(tail ? { tail } : {}), ...(offset ? { offset } : {}) };
}

function streamOf(req: Request): 'stdout' | 'stderr' {
  const v = queryString(req, 'stream', 10) ?? 'stdout';
  if (v !== 'stdout' && v !== 'stderr' && v !== '') throw new BadRequestError(`stream must be stdout or stderr, got ${JSON.stringify(v)}`);
  return v === 'stderr' ? 'stderr' : 'stdout';
}

export function logsRouter(deps: RunsRouterDeps): Router {
  const r = Router();
  const { runs, logs } = deps;

  r.get('/dag-runs/:name/:dagRunId/log', async (req, res) => {
    const key = runKeyParams(req);
    const q = logQuery(req);
    const run = await runs.get(key);
    res.json((await logs.page(runLog(runKeyOf(run), run.status.attemptId), q)) ?? EMPTY_PAGE);
  });

  r.get('/dag-runs/:name/:dagRunId/steps/:stepName/log', async (req, res) => {
    const key = runKeyParams(req);
    const stepName = stepNameParam(req);
    const q = logQuery(req);
    const stream = streamOf(req);
    const run = await runs.get(key);
    const state = run.status.run;
    const node = state.nodes.find((n) => n.name === stepName) ?? state.handlers.find((n) => n.name === stepName);
    if (!node || !stepOf(run.spec.definition, node)) throw new NotFoundError(`step "${stepName}" not found in dag-run ${run.spec.dagRunId} of DAG ${run.spec.dagName}`);
    const ref = nodeLog(run, node, stream);
    res.json((ref ? await logs.page(ref, q) : undefined) ?? EMPTY_PAGE);
  });

  return r;
}
