/**
 * GET /events/dag-runs: run status changes as server-sent events (docs/api.md "Event streams").
 * - `name` and `dagRunId` (`latest` allowed): one run, any run (a sub-DAG run too); events carry the run
 *   detail as GET /dag-runs/{name}/{dagRunId} returns it.
 * - `name` only, or nothing: root runs (of that DAG), as GET /dag-runs lists them; events carry summaries
 *   and the snapshot holds the newest `limit` runs.
 * First a `snapshot`, then a `dag-run` event whenever a run's status or one of its nodes' changes. The
 * subscription comes first and the snapshot is read after it: a change in between is sent after the
 * snapshot when it is newer than the snapshot's state of that run, so nothing is lost or sent backwards.
 */
import { Router, type Request, type Response } from 'express';
import { BadRequestError } from '../../core/errors.js';
import { runKeyOf, runKeyText, type RunKey } from '../../core/ports/run-store.js';
import { isValidRunId, type DagRunResource } from '../../core/resources.js';
import { runDetail, runSummary } from '../../engine/services/presenter.js';
import { queryInt, queryString, show } from '../input.js';
import { checkDagName } from '../runs/input.js';
import { openStream, type EventsContext } from './context.js';
import { statusFingerprint, versionOf } from './run-hub.js';

/** Runs in the snapshot of a list stream: default and maximum. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

interface Query { name?: string; dagRunId?: string; limit: number }

function query(req: Request): Query {
  const name = queryString(req, 'name', 100);
  const id = queryString(req, 'dagRunId', 64);
  const limit = queryInt(req, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT);
  const q: Query = { limit };
  if (name) q.name = checkDagName(name, 'name');
  if (id) {
    if (!q.name) throw new BadRequestError('dagRunId needs name: give both to follow one run');
    if (id !== 'latest' && !isValidRunId(id)) throw new BadRequestError(`invalid dagRunId ${show(id)}: letters, digits, "_", "." and "-" (at most 64), or latest`);
    q.dagRunId = id;
  }
  return q;
}

/** Changes that arrive while the snapshot is read: the latest per run (bounded by the number of runs). */
class Pending {
  private readonly runs = new Map<string, DagRunResource>();
  private sink: ((run: DagRunResource) => void) | undefined;

  add(run: DagRunResource): void {
    if (this.sink) return this.sink(run);
    const k = runKeyText(runKeyOf(run));
    const had = this.runs.get(k);
    if (!had || versionOf(run.metadata.resourceVersion) > versionOf(had.metadata.resourceVersion)) this.runs.set(k, run);
  }

  /** Hands what waited to `sink` (when `news` says it differs from the snapshot), then every change as it comes. */
  flush(news: (run: DagRunResource) => boolean, sink: (run: DagRunResource) => void): void {
    for (const run of this.runs.values()) if (news(run)) sink(run);
    this.runs.clear();
    this.sink = sink;
  }
}

/** A run's state in a snapshot: a change is news when it is newer and changes a status. */
interface Seen { rv: bigint; fp: string }
const seenOf = (run: DagRunResource): Seen => ({ rv: versionOf(run.metadata.resourceVersion), fp: statusFingerprint(run) });
const isNews = (run: DagRunResource, seen: Seen | undefined): boolean => {
  if (!seen) return true;
  const now = seenOf(run);
  return now.rv > seen.rv && now.fp !== seen.fp;
};

async function followRun(ctx: EventsContext, res: Response, key: RunKey, release: () => void): Promise<void> {
  const pending = new Pending();
  /** The run id, once `latest` is resolved. */
  const id: { dagRunId?: string } = key.dagRunId === 'latest' ? {} : { dagRunId: key.dagRunId };
  const off = ctx.hub.listen((run) => {
    if (run.spec.dagName === key.dagName && (!id.dagRunId || run.spec.dagRunId === id.dagRunId)) pending.add(run);
  });
  let run: DagRunResource;
  try {
    await ctx.hub.ready();
    run = await ctx.runs.get(key);
  } catch (e) {
    off();
    throw e;
  }
  const dagRunId = run.spec.dagRunId;
  id.dagRunId = dagRunId;
  const sse = openStream(ctx, res, () => { off(); release(); });
  let seq = 0;
  sse.send('snapshot', { dagRun: runDetail(ctx.logs, run) }, ++seq);
  // The last state sent: one stream never sends the same statuses twice in a row.
  let sent = seenOf(run);
  const send = (r: DagRunResource): void => {
    if (r.spec.dagRunId !== dagRunId || !isNews(r, sent)) return;
    sent = seenOf(r);
    sse.send('dag-run', { dagRun: runDetail(ctx.logs, r) }, ++seq);
  };
  pending.flush(() => true, send);
}

async function followList(ctx: EventsContext, res: Response, q: Query, release: () => void): Promise<void> {
  const pending = new Pending();
  const off = ctx.hub.listen((run) => {
    if (!run.spec.parent && (!q.name || run.spec.dagName === q.name)) pending.add(run);
  });
  let runs: DagRunResource[];
  try {
    await ctx.hub.ready();
    runs = await ctx.store.list({ rootOnly: true, limit: q.limit, ...(q.name ? { dagName: q.name } : {}) });
  } catch (e) {
    off();
    throw e;
  }
  const sse = openStream(ctx, res, () => { off(); release(); });
  let seq = 0;
  sse.send('snapshot', { dagRuns: runs.map((r) => runSummary(ctx.logs, r)) }, ++seq);
  const inSnapshot = new Map(runs.map((r) => [runKeyText(runKeyOf(r)), seenOf(r)]));
  pending.flush((r) => isNews(r, inSnapshot.get(runKeyText(runKeyOf(r)))), (r) => { sse.send('dag-run', { dagRun: runSummary(ctx.logs, r) }, ++seq); });
}

export function runEventsRouter(ctx: EventsContext): Router {
  const r = Router();
  r.get('/events/dag-runs', async (req, res) => {
    const q = query(req);
    const release = ctx.slots.acquire(res);
    try {
      if (q.name && q.dagRunId) await followRun(ctx, res, { dagName: q.name, dagRunId: q.dagRunId }, release);
      else await followList(ctx, res, q, release);
    } catch (e) {
      release();
      throw e;
    }
  });
  return r;
}
