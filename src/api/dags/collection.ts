/** The DAG collection (SPEC 4.3): GET/POST /dags, /dags/search, /dags/tags, POST /dags/validate. */
import { Router, type Request } from 'express';
import { BadRequestError } from '../../core/errors.js';
import { matchesTagFilter, parseTagFilter, type TagFilter } from '../../core/spec/tags.js';
import type { DagEntry } from '../../engine/services/api.js';
import { MAX_QUERY_LENGTH } from '../../engine/services/dag-service.js';
import type { DagsRouterDeps } from './deps.js';
import { body, queryInt, queryList, queryString } from '../input.js';
import { NextRuns } from './next-runs.js';
import { dagDetailView, dagListItem, dagListView } from './views.js';

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 1000;
const MAX_PAGE = 1_000_000;

function tagFilter(req: Request): TagFilter {
  const expr = [queryList(req, 'tag'), queryList(req, 'tags')].filter((x) => x !== undefined && x !== '').join(',');
  const f = parseTagFilter(expr);
  if ('error' in f) throw new BadRequestError(f.error);
  return f;
}

/** name: case-insensitive substring of the DAG name or the fileName. */
function filterEntries(entries: DagEntry[], name: string | undefined, tags: TagFilter): DagEntry[] {
  const needle = name?.toLowerCase();
  return entries
    .filter((e) => !needle || e.loaded.definition.name.toLowerCase().includes(needle) || e.fileName.toLowerCase().includes(needle))
    .filter((e) => tags.terms.length === 0 || matchesTagFilter(e.loaded.definition.tags ?? [], tags))
    .sort((a, b) => a.loaded.definition.name.localeCompare(b.loaded.definition.name) || a.fileName.localeCompare(b.fileName));
}

function pagination(total: number, page: number, perPage: number) {
  const totalPages = Math.ceil(total / perPage);
  return { totalRecords: total, currentPage: page, totalPages, nextPage: page < totalPages ? page + 1 : null, prevPage: page > 1 ? page - 1 : null };
}

export function collectionRouter(deps: DagsRouterDeps): Router {
  const r = Router();
  const nextRuns = new NextRuns(deps.tz);

  r.get('/dags', async (req, res) => {
    const page = queryInt(req, 'page', 1, 1, MAX_PAGE);
    const perPage = queryInt(req, 'perPage', DEFAULT_PER_PAGE, 1, MAX_PER_PAGE);
    const name = queryString(req, 'name');
    const tags = tagFilter(req);
    const { entries, errors } = await deps.dags.catalog.list();
    const matched = filterEntries(entries, name, tags);
    const shown = matched.slice((page - 1) * perPage, page * perPage);
    const latest = await Promise.all(shown.map((e) => deps.history.latest(e.loaded.definition.name)));
    const now = deps.clock.now();
    res.json({ dags: shown.map((e, i) => dagListItem(deps.logs, e, latest[i], nextRuns.of(e, now))), errors, pagination: pagination(matched.length, page, perPage) });
  });

  r.get('/dags/search', async (req, res) => {
    const q = queryString(req, 'q', MAX_QUERY_LENGTH);
    if (q === undefined || q.trim() === '') throw new BadRequestError('query parameter q is required');
    const { results, errors } = await deps.dags.search(q);
    res.json({ results: results.map(({ entry, matches }) => ({ name: entry.fileName, dag: dagListView(entry.loaded.definition), matches })), errors });
  });

  r.get('/dags/tags', async (_req, res) => {
    res.json(await deps.dags.tags());
  });

  r.post('/dags/validate', async (req, res) => {
    const b = body(req);
    const v = await deps.dags.validate(b.spec, b.name);
    res.json({ valid: v.valid, errors: v.errors, dag: v.dag ? dagDetailView(v.dag) : null });
  });

  r.post('/dags', async (req, res) => {
    const b = body(req);
    res.status(201).json({ name: await deps.dags.create(b.name, b.spec) });
  });

  return r;
}
