/**
 * list() over DagRun objects, the same for the API's answer and the watch cache's: label selectors
 * narrow what the API sends, exact checks on spec decide (a label value may be a hash of the name), and
 * the filters, order, cursor and limit are core's (core/run/run-list.ts), as in every RunStore. Pure.
 */
import { labelValue, SVC_LABELS } from '../../core/naming.js';
import type { RunListFilter } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import { createdMsOf, selectRuns as select, type RunEntry } from '../../core/run/run-list.js';
import { createdAt, isComplete, toRun, writtenAt, type DagRunObject } from './run-mapping.js';

/** The label selector that narrows a LIST to the filter's candidates (undefined: all). */
export function selectorOf(f: RunListFilter): string | undefined {
  const parts = [
    ...(f.dagName !== undefined ? [`${SVC_LABELS.dag}=${labelValue(f.dagName)}`] : []),
    ...(f.rootOnly ? [`!${SVC_LABELS.parent}`] : []),
  ];
  return parts.length > 0 ? parts.join(',') : undefined;
}

/** The list entry of a complete object, read in place (only the runs returned are copied). */
function entryOf(o: DagRunObject): RunEntry {
  const spec = o.spec!;
  const status = o.status!;
  const created = createdAt(o);
  return {
    createdMs: createdMsOf(created), dagRunId: spec.dagRunId, dagName: spec.dagName, root: !spec.parent,
    status: status.run.status, timeMs: Date.parse(status.run.startedAt || status.queuedAt || created),
    tags: spec.definition.tags ?? [],
  };
}

/** The runs of `objects` that pass the filter, newest first, at most `limit`; only those are copied. */
export function selectRuns(objects: Iterable<DagRunObject>, f: RunListFilter): DagRunResource[] {
  const complete: DagRunObject[] = [];
  for (const o of objects) {
    if (isComplete(o) && (f.writtenBefore === undefined || writtenAt(o) <= f.writtenBefore)) complete.push(o);
  }
  return select(complete, entryOf, f).map(toRun);
}
