/**
 * The DAG list (GET /dags), filtered and paged by the server: a name (part of it), a tag expression
 * (SPEC 2.9), 1,000 DAGs a page; or, with a search, the DAG files holding its words (GET /dags/search).
 * Filters, page and search live in the address (`?name=&tags=&page=&search=`), so a list can be bookmarked.
 */
import { useDeferredValue, useMemo, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useLive } from '../api/live';
import { keys, useDags, type DagFilter } from '../api/queries';
import { DagSearch } from '../components/dag-search';
import { DagTable } from '../components/dag-table';
import { ErrorBox, Loading } from '../components/query-state';
import { withTag } from '../lib/filter';
import { useTitle } from '../lib/hooks';
import { isLive } from '../lib/status';
import { useCan } from '../auth/session';
import type { Pagination } from '../api/types';

function filterOf(params: URLSearchParams): DagFilter {
  const page = Number(params.get('page'));
  return {
    ...(params.get('name') ? { name: params.get('name')! } : {}),
    ...(params.get('tags') ? { tags: params.get('tags')! } : {}),
    ...(Number.isInteger(page) && page > 1 ? { page } : {}),
  };
}

export function DagsPage() {
  useTitle('DAGs');
  const [params, setParams] = useSearchParams();
  const filter = useDeferredValue(useMemo(() => filterOf(params), [params]));
  const search = params.get('search') ?? '';
  const manage = useCan('manager');
  /**
   * Sets address parameters ('' removes one); a new filter starts again at page 1. From the address as it
   * is now, not as this render saw it (its `params` may be a render old): two fields changed before a render both count.
   */
  const set = (changes: Record<string, string>) => {
    const next = new URLSearchParams(window.location.search);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    if (!('page' in changes)) next.delete('page');
    setParams(next, { replace: true });
  };
  return (
    <>
      <header className="page-header">
        <h1>DAGs</h1>
        <div className="actions">{manage ? <Link to="/new-dag" className="button primary">New DAG</Link> : null}</div>
      </header>
      <form className="filters" aria-label="Filter DAGs" onSubmit={(e) => e.preventDefault()}>
        <label>Name <input type="search" value={params.get('name') ?? ''} onChange={(e) => set({ name: e.target.value.trim() })} placeholder="part of the name" /></label>
        <label>Tags <input type="search" value={params.get('tags') ?? ''} onChange={(e) => set({ tags: e.target.value.trim() })} placeholder="env=prod,!draft" spellCheck={false} /></label>
      </form>
      <SearchForm search={search} onSearch={(q) => set({ search: q })} />
      {search ? <DagSearch q={search} /> : <DagList filter={filter} onTag={(t) => set({ tags: withTag(params.get('tags') ?? '', t) })} onPage={(n) => set({ page: n > 1 ? String(n) : '' })} />}
    </>
  );
}

/** Search in the DAG files' text: sent on Enter or the button (each search reads every file). */
function SearchForm({ search, onSearch }: { search: string; onSearch: (q: string) => void }) {
  const [text, setText] = useState(search);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSearch(text.trim());
  };
  return (
    <form className="filters" role="search" aria-label="Search DAG files" onSubmit={submit}>
      <label>Search in files <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="text in the YAML" /></label>
      <button type="submit">Search</button>
      {search ? <button type="button" className="ghost" onClick={() => { setText(''); onSearch(''); }}>Clear search</button> : null}
    </form>
  );
}

function DagList({ filter, onTag, onPage }: { filter: DagFilter; onTag: (tag: string) => void; onPage: (page: number) => void }) {
  const dags = useDags(filter);
  useLive(keys.dags, (dags.data?.dags ?? []).some((d) => isLive(d.latestDAGRun)), '/events/dag-runs?limit=1');
  if (dags.isPending) return <Loading what="DAGs" />;
  if (dags.isError) return <ErrorBox error={dags.error} what="the DAGs" />;
  const { dags: items, errors, pagination } = dags.data;
  return (
    <>
      {errors.length > 0 ? (
        <div className="warning-box" role="status">
          <strong>Some DAG files could not be read:</strong>
          <ul>{errors.map((e) => <li key={e}>{e}</li>)}</ul>
        </div>
      ) : null}
      <Pager pagination={pagination} shown={items.length} onPage={onPage} />
      <DagTable items={items} onTag={onTag} />
    </>
  );
}

function Pager({ pagination: p, shown, onPage }: { pagination: Pagination; shown: number; onPage: (page: number) => void }) {
  const total = p.totalRecords === 1 ? '1 DAG' : `${p.totalRecords} DAGs`;
  return (
    <nav className="pager" aria-label="DAG pages">
      <span className="muted small" aria-live="polite">{p.totalPages > 1 ? `${shown} of ${total}, page ${p.currentPage} of ${p.totalPages}` : total}</span>
      {p.totalPages > 1 ? (
        <>
          <button type="button" className="ghost" disabled={!p.prevPage} onClick={() => p.prevPage && onPage(p.prevPage)}>Previous page</button>
          <button type="button" className="ghost" disabled={!p.nextPage} onClick={() => p.nextPage && onPage(p.nextPage)}>Next page</button>
        </>
      ) : null}
    </nav>
  );
}
