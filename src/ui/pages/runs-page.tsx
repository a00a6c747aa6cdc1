/**
 * The runs list (GET /dag-runs): root runs newest first, filtered by the server (DAG name, status, run id,
 * a date range, a tag expression: the filters live in the address, so a filtered list can be bookmarked), live while any
 * listed run may still change. 200 runs a page; the next one (the server's cursor) is read when the last row
 * comes into view, or by "Show more". The rows are virtual: 10,000 runs put a screenful in the DOM.
 */
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { useLive } from '../api/live';
import { keys, useRunPages, type RunFilter } from '../api/queries';
import type { DagRunSummary } from '../api/types';
import { ErrorBox, Loading } from '../components/query-state';
import { RunCells } from '../components/run-cells';
import { rowCount, VirtualRows } from '../components/virtual-rows';
import { useNow, useTitle } from '../lib/hooks';
import { isLive, RUN_STATUSES } from '../lib/status';

/** The filter the address says; `from`/`to` are dates (YYYY-MM-DD), the whole day, local time. */
export function filterOf(params: URLSearchParams): RunFilter {
  const day = (v: string | null, end: boolean): number | undefined => {
    if (!v || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
    const t = new Date(`${v}T${end ? '23:59:59' : '00:00:00'}`).getTime();
    return Number.isFinite(t) ? Math.floor(t / 1000) : undefined;
  };
  const status = params.get('status');
  const f: RunFilter = {};
  if (params.get('name')) f.name = params.get('name')!;
  if (status !== null && status !== '' && Number.isInteger(Number(status))) f.status = Number(status);
  if (params.get('id')) f.dagRunId = params.get('id')!;
  if (params.get('tags')) f.tags = params.get('tags')!;
  const from = day(params.get('from'), false);
  const to = day(params.get('to'), true);
  if (from !== undefined) f.fromDate = from;
  if (to !== undefined) f.toDate = to;
  return f;
}

const COLUMNS = ['DAG', 'Run', 'Status', 'Started', 'Duration', 'Params'];

export function RunsPage() {
  useTitle('Runs');
  const [params, setParams] = useSearchParams();
  const filter = useMemo(() => filterOf(params), [params]);
  const pages = useRunPages(filter);
  const runs = useMemo(() => pages.data?.pages.flatMap((p) => p.dagRuns) ?? [], [pages.data]);
  useLive(keys.runs(filter), runs.some(isLive), '/events/dag-runs?limit=1');
  const { fetchNextPage } = pages;
  const more = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    setParams(next, { replace: true });
  };
  return (
    <>
      <header className="page-header"><h1>Runs</h1></header>
      <form className="filters" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        <label>DAG <input type="search" value={params.get('name') ?? ''} onChange={(e) => set('name', e.target.value.trim())} placeholder="exact name" /></label>
        <label>Status
          <select value={params.get('status') ?? ''} onChange={(e) => set('status', e.target.value)}>
            <option value="">any</option>
            {RUN_STATUSES.map((s) => <option key={s.code} value={s.code}>{s.label}</option>)}
          </select>
        </label>
        <label>Run id <input type="search" value={params.get('id') ?? ''} onChange={(e) => set('id', e.target.value.trim())} placeholder="part of the id" /></label>
        <label>Tags <input type="search" value={params.get('tags') ?? ''} onChange={(e) => set('tags', e.target.value.trim())} placeholder="env=prod,!draft" spellCheck={false} /></label>
        <label>From <input type="date" value={params.get('from') ?? ''} onChange={(e) => set('from', e.target.value)} /></label>
        <label>To <input type="date" value={params.get('to') ?? ''} onChange={(e) => set('to', e.target.value)} /></label>
      </form>
      {pages.isPending ? <Loading what="runs" /> : null}
      {pages.isError ? <ErrorBox error={pages.error} what="the runs" /> : null}
      {pages.data ? <RunTable runs={runs} more={pages.hasNextPage} loading={pages.isFetchingNextPage} onMore={more} /> : null}
    </>
  );
}

/** The runs read so far, as virtual rows; the next page is read when the last one comes into view. */
function RunTable({ runs, more, loading, onMore }: { runs: DagRunSummary[]; more: boolean; loading: boolean; onMore: () => void }) {
  const now = useNow(runs.some(isLive));
  const onEnd = useCallback(() => { if (more && !loading) onMore(); }, [more, loading, onMore]);
  return (
    <>
      <p className="muted small" aria-live="polite">{more ? `the newest ${runs.length} runs` : `${runs.length} runs`}</p>
      <table className="table runs" aria-label="Runs" aria-rowcount={rowCount(runs.length)}>
        <thead>
          <tr aria-rowindex={1}>{COLUMNS.map((c) => <th key={c} scope="col">{c}</th>)}</tr>
        </thead>
        <VirtualRows items={runs} estimate={41} columns={COLUMNS.length} onEnd={onEnd} row={(r, props) => (
          <tr key={`${r.name}/${r.dagRunId}`} data-run={r.dagRunId} {...props}><RunCells run={r} now={now} /></tr>
        )} />
      </table>
      {more ? <button type="button" className="ghost" disabled={loading} onClick={onMore}>{loading ? 'Loading…' : 'Show more'}</button> : null}
    </>
  );
}
