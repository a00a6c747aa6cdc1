/**
 * GET /events/dag-runs/{name}/{dagRunId}/steps/{stepName}/log?stream=stdout|stderr&tail=N: a step's log
 * as it is written (docs/api.md "Event streams"). `log` events carry lines (`offset` is the 1-based
 * number of the first; `id` the number of the last), and `end` follows once the step's execution is
 * finished and its log fully sent; then the response ends.
 *
 * Memory is one page: the log store is read a page at a time from the last line sent, never whole.
 * That line is read again each time: a line still being written (no newline yet) that grew is sent
 * again from its start (`offset` = its number), so a client replaces its lines from `offset` on.
 * Polled between pollMinMs and pollMaxMs (backing off while nothing comes), and woken at once by a
 * status change of the run (the hub).
 */
import { Router, type Request, type Response } from 'express';
import { BadRequestError, NotFoundError } from '../../core/errors.js';
import { MAX_LOG_LINES, type LogRef, type LogStream } from '../../core/ports/log-store.js';
import type { DagRunResource } from '../../core/resources.js';
import { stepOf, type NodeState } from '../../core/run/state.js';
import { isNodeDone, isRunTerminal, nodeStatusLabel, type NodeStatus } from '../../core/run/status.js';
import { nodeLog } from '../../engine/services/presenter.js';
import { queryInt, queryString } from '../input.js';
import { runKeyParams, stepNameParam } from '../runs/input.js';
import { lastEventId, openStream, type EventsContext } from './context.js';
import { versionOf } from './run-hub.js';
import type { SseStream } from './sse.js';

/** Lines per read (and per event). */
const PAGE_LINES = 1000;

function streamOf(req: Request): LogStream {
  const v = queryString(req, 'stream', 10) ?? 'stdout';
  if (v !== 'stdout' && v !== 'stderr' && v !== '') throw new BadRequestError(`stream must be stdout or stderr, got ${JSON.stringify(v)}`);
  return v === 'stderr' ? 'stderr' : 'stdout';
}

function nodeNamed(run: DagRunResource, stepName: string): NodeState | undefined {
  const s = run.status.run;
  const node = s.nodes.find((n) => n.name === stepName) ?? s.handlers.find((n) => n.name === stepName);
  return node && stepOf(run.spec.definition, node) ? node : undefined;
}

interface Start {
  /** Lines the client already has (Last-Event-ID): the last of them is sent again, the rest not. */
  after?: number;
  /** Only the last N existing lines. */
  tail?: number;
}

class Tail {
  /** Number of the last line sent (0: none), and its text as sent (undefined: not known). */
  private sent: number;
  private lastText: string | undefined;
  /** The last line sent was the log's last line then: it may grow, the next read starts at it. */
  private openEnd: boolean;
  /** Where the tailed log lives: another location means a new attempt of the run, which this tail does not follow. */
  private location: string | undefined;
  private tail: number | undefined;
  private delay: number;
  private wakeUp: (() => void) | undefined;

  constructor(private readonly ctx: EventsContext, private readonly sse: SseStream, private run: DagRunResource,
    private readonly stepName: string, private readonly stream: LogStream, start: Start) {
    this.sent = start.after ?? 0;
    // A reconnecting client gets its last line again (it may have grown), to replace its copy.
    this.openEnd = start.after !== undefined;
    this.tail = start.after === undefined ? start.tail : undefined;
    this.delay = ctx.pollMinMs;
    sse.onClose(() => this.wake());
  }

  /** A newer state of the run (status change). */
  update(run: DagRunResource): void {
    if (versionOf(run.metadata.resourceVersion) <= versionOf(this.run.metadata.resourceVersion)) return;
    this.run = run;
    this.wake();
  }

  async follow(): Promise<void> {
    while (!this.sse.closed) {
      // Read the state before the log: a step seen finished wrote its whole log before, so the reads
      // that follow get all of it.
      const run = this.run;
      const node = nodeNamed(run, this.stepName);
      const finished = !node || isNodeDone(node.status) || isRunTerminal(run.status.run.status);
      const ref = node ? nodeLog(run, node, this.stream) : undefined;
      const moved = ref !== undefined && this.location !== undefined && this.ctx.logs.locate(ref) !== this.location;
      const more = ref && !moved ? await this.read(ref) : false;
      if (this.sse.closed) return;
      if (more) {
        await this.sse.drained();
        continue;
      }
      if (finished || moved) return this.finish(node);
      await this.pause();
    }
  }

  /** One page after the last line sent (from it, when it may be unfinished); true when more lines are there already. */
  private async read(ref: LogRef): Promise<boolean> {
    this.location ??= this.ctx.logs.locate(ref);
    const tail = this.tail;
    this.tail = undefined;
    const from = this.openEnd ? Math.max(1, this.sent) : this.sent + 1;
    const page = tail !== undefined
      ? await this.ctx.logs.page(ref, { tail })
      : await this.ctx.logs.page(ref, { offset: from, limit: PAGE_LINES });
    if (!page || page.lineCount === 0) {
      this.backOff();
      return false;
    }
    let offset = tail !== undefined ? page.totalLines - page.lineCount + 1 : from;
    const lines = page.content.split('\n');
    if (offset === this.sent && this.lastText !== undefined && lines[0] === this.lastText) {
      lines.shift();
      offset++;
    }
    if (lines.length > 0) {
      this.sse.send('log', { offset, lines }, offset + lines.length - 1);
      this.sent = offset + lines.length - 1;
      this.lastText = lines[lines.length - 1];
      // The file's last line may still be written to (no newline yet): read again from it next time.
      this.openEnd = tail !== undefined || !page.hasMore;
      this.delay = this.ctx.pollMinMs;
    } else {
      // Lines follow the line read again: it is complete.
      if (page.hasMore) this.openEnd = false;
      this.backOff();
    }
    return tail !== undefined || page.hasMore;
  }

  private backOff(): void {
    this.delay = Math.min(this.delay * 2, this.ctx.pollMaxMs);
  }

  private finish(node: NodeState | undefined): void {
    const status = (node?.status ?? 0) as NodeStatus;
    this.sse.send('end', { status, statusLabel: nodeStatusLabel(status), totalLines: this.sent }, this.sent);
    this.sse.end();
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.wakeUp === done) this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.delay);
      this.wakeUp = done;
    });
  }

  private wake(): void {
    this.wakeUp?.();
  }
}

async function tailStep(ctx: EventsContext, req: Request, res: Response): Promise<void> {
  const key = runKeyParams(req);
  const stepName = stepNameParam(req);
  const stream = streamOf(req);
  const tail = queryInt(req, 'tail', 0, 1, MAX_LOG_LINES);
  const after = lastEventId(req);
  const release = ctx.slots.acquire(res);
  /** The run id once `latest` is resolved, and the tail once it runs; before, changes wait (the latest per run id). */
  const to: { dagRunId?: string; tail?: Tail } = key.dagRunId === 'latest' ? {} : { dagRunId: key.dagRunId };
  const early = new Map<string, DagRunResource>();
  const off = ctx.hub.listen((run) => {
    if (run.spec.dagName !== key.dagName || (to.dagRunId && run.spec.dagRunId !== to.dagRunId)) return;
    if (to.tail) to.tail.update(run);
    else early.set(run.spec.dagRunId, run);
  });
  let run: DagRunResource;
  try {
    await ctx.hub.ready();
    run = await ctx.runs.get(key);
    if (!nodeNamed(run, stepName)) throw new NotFoundError(`step "${stepName}" not found in dag-run ${run.spec.dagRunId} of DAG ${run.spec.dagName}`);
  } catch (e) {
    off();
    release();
    throw e;
  }
  to.dagRunId = run.spec.dagRunId;
  const sse = openStream(ctx, res, () => { off(); release(); });
  const t = new Tail(ctx, sse, run, stepName, stream, { ...(after !== undefined ? { after } : {}), ...(tail > 0 ? { tail } : {}) });
  const waited = early.get(run.spec.dagRunId);
  if (waited) t.update(waited);
  to.tail = t;
  // A read that fails (the log store unreachable) ends the stream; the client reconnects with Last-Event-ID.
  void t.follow().catch(() => sse.end());
}

export function stepLogEventsRouter(ctx: EventsContext): Router {
  const r = Router();
  r.get('/events/dag-runs/:name/:dagRunId/steps/:stepName/log', (req, res) => tailStep(ctx, req, res));
  return r;
}
