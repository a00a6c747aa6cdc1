/**
 * list() over DagRun objects, the same for the API's answer and the watch cache's: label selectors
 * narrow what the API sends, exact checks on spec decide (a label value may be a hash of the name),
 * then newest first. Pure.
 */
import { labelValue, SVC_LABELS } from '../../core/naming.js';
import type { RunListFilter } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import { createdAt, isComplete, toRun, writtenAt, type DagRunObject } from './run-mapping.js';

/** The label selector that narrows a LIST to the filter's candidates (undefined: all). */
export function selectorOf(f: RunListFilter): string | undefined {
  const parts = [
    ...(f.dagName !== undefined ? [`${SVC_LABELS.dag}=${labelValue(f.dagName)}`] : []),
    ...(f.rootOnly ? [`!${SVC_LABELS.parent}`] : []),
  ];
  return parts.length > 0 ? parts.join(',') : undefined;
}

function matches(o: DagRunObject, f: RunListFilter): boolean {
  if (!isComplete(o)) return false;
  if (f.dagName !== undefined && o.spec!.dagName !== f.dagName) return false;
  if (f.rootOnly && o.spec!.parent) return false;
  return f.writtenBefore === undefined || writtenAt(o) <= f.writtenBefore;
}

interface Keyed {
  o: DagRunObject;
  at: number;
  id: string;
}

const desc = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);

/** Newest first: creation time, then run id, then object name (both descending). */
const newestFirst = (a: Keyed, b: Keyed): number =>
  b.at - a.at || desc(a.id, b.id) || desc(a.o.metadata.name, b.o.metadata.name);

const keyed = (o: DagRunObject): Keyed => {
  const at = Date.parse(createdAt(o));
  return { o, at: Number.isNaN(at) ? 0 : at, id: o.spec!.dagRunId };
};

/** The runs of `objects` that pass the filter, newest first, at most `limit`; only those are copied. */
export function selectRuns(objects: Iterable<DagRunObject>, f: RunListFilter): DagRunResource[] {
  const found: Keyed[] = [];
  for (const o of objects) if (matches(o, f)) found.push(keyed(o));
  found.sort(newestFirst);
  const kept = f.limit === undefined ? found : found.slice(0, Math.max(0, f.limit));
  return kept.map((k) => toRun(k.o));
}
