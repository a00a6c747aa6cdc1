/** DAG records of SPEC 2.8 (list item, detail) built from catalog entries. */
import type { DagDefinition, ParamDef } from '../../core/spec/types.js';
import { formatTag } from '../../core/spec/tags.js';
import type { DagRunResource } from '../../core/resources.js';
import type { DagEntry } from '../../engine/services/api.js';
import { runSummary, type LogLocator, type RunSummary } from '../../engine/services/presenter.js';

/** Keys whose values never leave the server in a DAG view (the spec text endpoint is the way to see them). */
const SECRET_KEYS = /^(password|secretAccessKey|apiKey|authToken|token)$/i;
const MASK = '*****';

/** Positional parameters have no name: they are listed as $1, $2, ... */
export function paramNames(params: ParamDef[] = []): string[] {
  let pos = 0;
  return params.map((p) => p.name ?? `$${++pos}`);
}

export function defaultParams(params: ParamDef[] = []): string {
  const quote = (v: string) => (v === '' || /[\s"']/.test(v) ? JSON.stringify(v) : v);
  return params.map((p) => (p.name ? `${p.name}=${quote(p.default)}` : quote(p.default))).join(' ');
}

const expressions = (entries: Array<{ raw: string }> = []) => entries.map((e) => ({ expression: e.raw }));
const tagTexts = (def: DagDefinition) => (def.tags ?? []).map(formatTag);

/** The `dag` object of a DAG list item. */
export function dagListView(def: DagDefinition) {
  return {
    name: def.name, group: def.group ?? '', schedule: expressions(def.schedule?.start), description: def.description ?? '',
    params: paramNames(def.params), defaultParams: defaultParams(def.params), tags: tagTexts(def),
  };
}

function redact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redact);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET_KEYS.test(k) && typeof x === 'string' && x !== '' ? MASK : redact(x)]));
}

/** The full definition in camelCase (DAG detail, validate): list fields plus every definition field. */
export function dagDetailView(def: DagDefinition) {
  const { delaySec, ...rest } = def;
  return {
    ...(redact(rest) as Record<string, unknown>), ...dagListView(def),
    stopSchedule: expressions(def.schedule?.stop), restartSchedule: expressions(def.schedule?.restart),
    delay: delaySec ?? 0,
  };
}

/** latestDAGRun when a DAG has never run: a summary of status 0 (not_started) with empty fields. */
export function noRunSummary(dagName: string): RunSummary {
  return {
    rootDAGRunName: '', rootDAGRunId: '', parentDAGRunName: '', parentDAGRunId: '', dagRunId: '', name: dagName,
    status: 0, statusLabel: 'not_started', queuedAt: '', startedAt: '', finishedAt: '', log: '', params: '',
  };
}

export const latestSummary = (logs: LogLocator, dagName: string, run: DagRunResource | undefined): RunSummary =>
  run ? runSummary(logs, run) : noRunSummary(dagName);

/** `next`: the DAG's nextRun (NextRuns). */
export function dagListItem(logs: LogLocator, e: DagEntry, latest: DagRunResource | undefined, next: string) {
  const def = e.loaded.definition;
  return {
    fileName: e.fileName, dag: dagListView(def), latestDAGRun: latestSummary(logs, def.name, latest), nextRun: next,
    suspended: e.suspended, errors: e.loaded.errors,
  };
}

export function dagDetail(logs: LogLocator, e: DagEntry, latest: DagRunResource | undefined) {
  const def = e.loaded.definition;
  return {
    dag: dagDetailView(def),
    localDags: e.localDagList.map((l) => ({ name: l.name, dag: l.dag ? dagDetailView(l.dag) : { name: l.name }, errors: l.errors })),
    latestDAGRun: latestSummary(logs, def.name, latest), suspended: e.suspended, errors: e.loaded.errors,
  };
}
