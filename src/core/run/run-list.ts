/**
 * Run lists (SPEC 4.5 `GET /dag-runs`, RunStore.list): the one definition of what a filter keeps, of
 * list order and of cursors, shared by every RunStore adapter (files with their index, Kubernetes'
 * watch cache, memory). An adapter may narrow the candidates with an index of its own first; what is
 * listed is decided here.
 *
 * Order: newest first by creation time (ms), ties broken by run id, then DAG name, both descending. A
 * run's creation time never changes, so its place in the order is fixed for life: a cursor (the place of
 * the last run of a page) stays valid while runs are added, retried or finish, and a walk from page to
 * page neither repeats nor skips a run that existed when the walk began.
 */
import type { RunListFilter, RunPosition } from '../ports/run-store.js';
import { isSafeDagName, isValidRunId, type DagRunResource } from '../resources.js';
import { matchesTagFilter } from '../spec/tags.js';
import type { Tag } from '../spec/types.js';

/** What a list filters and orders on: a small projection of a run (an index row holds the same). */
export interface RunEntry extends RunPosition {
  /** No parent run. */
  root: boolean;
  status: number;
  /** The run's time for date filters (runTimeMs); NaN when unreadable (then no date filter keeps it). */
  timeMs: number;
  tags: readonly Tag[];
}

/** A creationTimestamp as ms; 0 when it is not a date (such runs sort last). */
export function createdMsOf(creationTimestamp: string): number {
  const ms = Date.parse(creationTimestamp);
  return Number.isNaN(ms) ? 0 : ms;
}

/** The time date filters apply to: the start, else the queue time, else the creation (SPEC 4.5 fromDate/toDate). */
export function runTimeMs(run: Pick<DagRunResource, 'metadata' | 'status'>): number {
  return Date.parse(run.status.run.startedAt || run.status.queuedAt || run.metadata.creationTimestamp);
}

export function positionOf(run: Pick<DagRunResource, 'metadata' | 'spec'>): RunPosition {
  return { createdMs: createdMsOf(run.metadata.creationTimestamp), dagRunId: run.spec.dagRunId, dagName: run.spec.dagName };
}

export function runEntryOf(run: DagRunResource): RunEntry {
  return {
    ...positionOf(run), root: !run.spec.parent, status: run.status.run.status, timeMs: runTimeMs(run),
    tags: run.spec.definition.tags ?? [],
  };
}

const desc = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);

/** List order: negative when `a` is listed before `b`. */
export function compareNewestFirst(a: RunPosition, b: RunPosition): number {
  return b.createdMs - a.createdMs || desc(a.dagRunId, b.dagRunId) || desc(a.dagName, b.dagName);
}

/** Whether the filter keeps the run. Everything but `limit` and `writtenBefore` (adapter metadata). */
export function matchesRunFilter(e: RunEntry, f: RunListFilter): boolean {
  if (f.dagName !== undefined && e.dagName !== f.dagName) return false;
  if (f.rootOnly && !e.root) return false;
  if (f.status !== undefined && e.status !== f.status) return false;
  if (f.fromMs !== undefined && !(e.timeMs >= f.fromMs)) return false;
  if (f.toMs !== undefined && !(e.timeMs <= f.toMs)) return false;
  if (f.dagRunIdContains && !e.dagRunId.includes(f.dagRunIdContains)) return false;
  if (f.after && compareNewestFirst(e, f.after) <= 0) return false;
  return !f.tags || matchesTagFilter([...e.tags], f.tags);
}

/** Whether a filter narrows beyond DAG name and root-only (what a plain directory listing answers). */
export function narrowsRuns(f: RunListFilter): boolean {
  return f.limit !== undefined || f.status !== undefined || f.fromMs !== undefined || f.toMs !== undefined
    || !!f.dagRunIdContains || !!f.tags || !!f.after;
}

/**
 * The items the filter keeps, in list order, at most `limit`: O(n log limit), so the newest page of a
 * large in-memory set is not a sort of all of it.
 */
export function selectRuns<T>(items: Iterable<T>, entryOf: (t: T) => RunEntry, f: RunListFilter): T[] {
  const limit = f.limit === undefined ? Infinity : Math.max(0, f.limit);
  if (limit === 0) return [];
  const matched: Array<{ t: T; e: RunEntry }> = [];
  for (const t of items) {
    const e = entryOf(t);
    if (matchesRunFilter(e, f)) matched.push({ t, e });
  }
  if (limit >= matched.length) return matched.sort((a, b) => compareNewestFirst(a.e, b.e)).map((k) => k.t);
  const kept = new Heap<{ t: T; e: RunEntry }>((a, b) => compareNewestFirst(b.e, a.e));
  for (const m of matched) {
    if (kept.size < limit) kept.push(m);
    else if (compareNewestFirst(m.e, kept.peek()!.e) < 0) kept.replaceTop(m);
  }
  return kept.drain().sort((a, b) => compareNewestFirst(a.e, b.e)).map((k) => k.t);
}

/** A binary heap whose top is the item `before` ranks first (here: the last kept run in list order). */
class Heap<T> {
  private readonly items: T[] = [];
  constructor(private readonly before: (a: T, b: T) => number) {}

  get size(): number { return this.items.length; }
  peek(): T | undefined { return this.items[0]; }
  drain(): T[] { return this.items.splice(0); }

  push(t: T): void {
    const a = this.items;
    a.push(t);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (this.before(a[i]!, a[p]!) >= 0) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  replaceTop(t: T): void {
    const a = this.items;
    a[0] = t;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.before(a[l]!, a[m]!) < 0) m = l;
      if (r < a.length && this.before(a[r]!, a[m]!) < 0) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
  }
}

// ------------------------------------------------------------------------------------------- cursors
/** Longest cursor text accepted (a position encodes to well under 200 characters). */
export const MAX_CURSOR_LENGTH = 512;
const CURSOR_VERSION = 1;

/** The opaque cursor of a position: base64url of a versioned JSON array (clients must not build one). */
export function encodeRunCursor(p: RunPosition): string {
  return Buffer.from(JSON.stringify([CURSOR_VERSION, p.createdMs, p.dagName, p.dagRunId])).toString('base64url');
}

/** The position a cursor names; undefined for anything encodeRunCursor did not produce. */
export function decodeRunCursor(text: string): RunPosition | undefined {
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(v) || v.length !== 4) return undefined;
  const [version, createdMs, dagName, dagRunId] = v as unknown[];
  if (version !== CURSOR_VERSION || typeof createdMs !== 'number' || !Number.isSafeInteger(createdMs)) return undefined;
  if (typeof dagName !== 'string' || !isSafeDagName(dagName) || typeof dagRunId !== 'string' || !isValidRunId(dagRunId)) return undefined;
  return { createdMs, dagName, dagRunId };
}
