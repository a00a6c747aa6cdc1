/** Run management (SPEC 4.5): list, detail, stop, retry, reschedule, dequeue, manual step status. */
import { Router, type Request } from 'express';
import { BadRequestError, DomainError } from '../../core/errors.js';
import type { RunStatus, NodeStatus } from '../../core/run/status.js';
import { decodeRunCursor, encodeRunCursor, MAX_CURSOR_LENGTH } from '../../core/run/run-list.js';
import { parseTagFilter } from '../../core/spec/tags.js';
import { runDetail } from '../../engine/services/presenter.js';
import { checkRunName } from '../../engine/services/start-policy.js';
import type { RunFilter } from '../../engine/services/api.js';
import { body, queryInt, queryList, queryString, show } from '../input.js';
import { HttpError } from '../errors.js';
import type { RunsRouterDeps } from './deps.js';
import { checkDagName, checkStepName, intIn, optRunId, runKeyParams, stepNameParam } from './input.js';
import { runKeyOf } from '../../core/ports/run-store.js';

/** Unix seconds up to year 9999. */
const MAX_UNIX = 253_402_300_799;

/** Longest page of GET /dag-runs (as perPage of GET /dags, SPEC 8). */
export const MAX_RUNS_LIMIT = 1000;
/** The page of GET /dag-runs without `limit`: an answer is bounded whatever the filters keep. */
export const DEFAULT_RUNS_LIMIT = 100;

function runFilter(req: Request): RunFilter {
  const name = queryString(req, 'name', 100);
  const statusText = queryString(req, 'status', 20);
  const from = queryInt(req, 'fromDate', -1, 0, MAX_UNIX);
  const to = queryInt(req, 'toDate', -1, 0, MAX_UNIX);
  const dagRunId = queryString(req, 'dagRunId', 64);
  const tags = queryList(req, 'tags');
  const f: RunFilter = {};
  if (name) f.name = checkDagName(name, 'name');
  if (statusText !== undefined && statusText !== '') f.status = queryInt(req, 'status', 0, 0, 8) as RunStatus;
  if (from >= 0) f.fromMs = from * 1000;
  if (to >= 0) f.toMs = to * 1000 + 999;
  if (dagRunId) f.dagRunId = dagRunId;
  if (tags) {
    const parsed = parseTagFilter(tags);
    if ('error' in parsed) throw new BadRequestError(`invalid tags filter: ${parsed.error}`);
    f.tags = parsed;
  }
  return { ...f, ...pageOf(req) };
}

/** `limit` (default DEFAULT_RUNS_LIMIT) and `cursor` of a page. */
function pageOf(req: Request): Pick<RunFilter, 'limit' | 'after'> {
  const limit = queryInt(req, 'limit', DEFAULT_RUNS_LIMIT, 1, MAX_RUNS_LIMIT);
  const cursor = queryString(req, 'cursor', MAX_CURSOR_LENGTH);
  const after = cursor ? decodeRunCursor(cursor) : undefined;
  if (cursor && !after) throw new BadRequestError(`invalid cursor ${show(cursor)}: pass the nextCursor of a previous answer unchanged`);
  return { limit, ...(after ? { after } : {}) };
}

export function manageRouter(deps: RunsRouterDeps): Router {
  const r = Router();
  const { runs, control, queries } = deps;

  r.get('/dag-runs', async (req, res) => {
    const f = runFilter(req);
    const page = await queries.list(f);
    // SPEC 4.5's {dagRuns}, plus where the next page starts (null on the last page).
    res.json({ dagRuns: page.dagRuns, nextCursor: page.next ? encodeRunCursor(page.next) : null });
  });

  r.get('/dag-runs/:name/:dagRunId', async (req, res) => {
    res.json({ dagRun: runDetail(deps.logs, await runs.get(runKeyParams(req))) });
  });

  r.post('/dag-runs/:name/:dagRunId/stop', async (req, res) => {
    const run = await runs.get(runKeyParams(req));
    await runs.stop(runKeyOf(run));
    res.json({ dagRunId: run.spec.dagRunId });
  });

  r.post('/dag-runs/:name/:dagRunId/retry', async (req, res) => {
    const key = runKeyParams(req);
    const b = body(req);
    const dagRunId = optRunId(b);
    const stepName = b.stepName === undefined || b.stepName === null || b.stepName === '' ? undefined : checkStepName(b.stepName);
    try {
      const run = await control.retry(key, { ...(dagRunId ? { dagRunId } : {}), ...(stepName ? { stepName } : {}) });
      res.json({ dagRunId: run.spec.dagRunId });
    } catch (e) {
      // SPEC 7: already_running is 400 on retry (409 on start).
      if (e instanceof DomainError && e.code === 'already_running') throw new HttpError(400, 'already_running', e.message);
      throw e;
    }
  });

  r.post('/dag-runs/:name/:dagRunId/reschedule', async (req, res) => {
    const key = runKeyParams(req);
    const b = body(req);
    const dagRunId = optRunId(b);
    const dagName = b.dagName === undefined || b.dagName === null || b.dagName === '' ? undefined : checkDagName(b.dagName, 'dagName');
    if (dagName !== undefined) await checkRunName(deps.catalog, dagName, { definitionName: (await deps.runs.get(key)).spec.definition.name });
    res.json(await control.reschedule(key, { ...(dagRunId ? { dagRunId } : {}), ...(dagName ? { dagName } : {}) }));
  });

  r.get('/dag-runs/:name/:dagRunId/dequeue', async (req, res) => {
    const run = await control.dequeue(runKeyParams(req));
    res.json({ dagRunId: run.spec.dagRunId });
  });

  r.patch('/dag-runs/:name/:dagRunId/steps/:stepName/status', async (req, res) => {
    const key = runKeyParams(req);
    const stepName = stepNameParam(req);
    const status = intIn(body(req), 'status', 0, 5, true) as NodeStatus;
    const run = await control.patchStepStatus(key, stepName, status);
    res.json({ dagRun: runDetail(deps.logs, run) });
  });

  return r;
}
