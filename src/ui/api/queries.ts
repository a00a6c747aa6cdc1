/**
 * The queries and mutations of the pages, with their cache keys. Keys nest so one invalidation reaches a
 * run and everything under it (its step logs): ['run', name, id, 'log', step, stream].
 */
import { keepPreviousData, useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, must, orNull } from './client';
import { logQuery, type LogWindow } from '../lib/log-window';
import type { DagDetail, DagRunDetail, Health } from './types';

/** DAGs per page of the list: the API's largest page (SPEC 8); the rows are virtual, more pages are paged. */
export const DAG_PAGE_SIZE = 1000;
/** Lines of a step log per page (its tail first). */
export const LOG_PAGE = 2000;

export const keys = {
  dags: ['dags'] as const,
  dag: (fileName: string) => ['dag', fileName] as const,
  /** A DAG's runs: its latest and its history grid (one invalidation refreshes both). */
  dagRuns: (fileName: string) => ['dag', fileName, 'runs'] as const,
  latest: (fileName: string) => ['dag', fileName, 'runs', 'latest'] as const,
  run: (name: string, id: string) => ['run', name, id] as const,
  log: (name: string, id: string, step: string, stream: 'stdout' | 'stderr') => ['run', name, id, 'log', step, stream] as const,
  runs: (filter: RunFilter) => ['runs', filter] as const,
  history: (fileName: string) => ['dag', fileName, 'runs', 'history'] as const,
  spec: (fileName: string) => ['dag', fileName, 'spec'] as const,
};

/** Runs in a DAG's history grid. */
export const HISTORY_RUNS = 30;

export function useDagHistory(fileName: string) {
  return useQuery({
    queryKey: keys.history(fileName),
    queryFn: ({ signal }) => must(api.GET('/dags/{fileName}/dag-runs', { params: { path: { fileName }, query: { limit: HISTORY_RUNS } }, signal })),
  });
}

/** The server-side filters of GET /dag-runs (dates in Unix seconds, inclusive). */
export interface RunFilter {
  name?: string;
  status?: number;
  dagRunId?: string;
  fromDate?: number;
  toDate?: number;
  /** SPEC 2.9's tag filter expression (`env=prod,!draft`), on each run's definition snapshot. */
  tags?: string;
}

/** The most runs the dashboard reads of a day, and of each active status: a page, never every run. */
export const DASHBOARD_RUNS = 500;

/** The newest DASHBOARD_RUNS runs the filter keeps; `more`: the server has older ones past them. */
export function useRunsPage(filter: RunFilter) {
  return useQuery({
    queryKey: [...keys.runs(filter), 'page'],
    queryFn: async ({ signal }) => {
      const r = await must(api.GET('/dag-runs', { params: { query: { ...(filter as Record<string, never>), limit: DASHBOARD_RUNS } }, signal }));
      return { runs: r.dagRuns, more: Boolean(r.nextCursor) };
    },
  });
}

/** Runs running, waiting or queued, whenever they started (at most DASHBOARD_RUNS of each status). */
export function useActiveRuns() {
  return useQuery({
    queryKey: ['runs', 'active'],
    queryFn: async ({ signal }) => (await Promise.all(QUEUE_STATUSES.map((status) =>
      must(api.GET('/dag-runs', { params: { query: { status, limit: DASHBOARD_RUNS } }, signal }))))).flatMap((r) => r.dagRuns),
  });
}

/** Runs per page of the runs list; "Show more" asks the server for the next page (its cursor). */
export const RUNS_PAGE = 200;

export function useRunPages(filter: RunFilter) {
  return useInfiniteQuery({
    queryKey: [...keys.runs(filter), 'pages'],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ signal, pageParam }) => must(api.GET('/dag-runs', {
      params: { query: { ...(filter as Record<string, never>), limit: RUNS_PAGE, ...(pageParam ? { cursor: pageParam } : {}) } }, signal,
    })),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** The server-side filters of GET /dags: `name` a substring, `tags` SPEC 2.9's expression, `page` 1-based. */
export interface DagFilter {
  name?: string;
  tags?: string;
  page?: number;
}

/** One page of DAGs; the previous answer stays on screen while a new filter or page is read. */
export function useDags(filter: DagFilter = {}) {
  return useQuery({
    queryKey: [...keys.dags, filter],
    queryFn: ({ signal }) => must(api.GET('/dags', { params: { query: { ...filter, perPage: DAG_PAGE_SIZE } }, signal })),
    placeholderData: keepPreviousData,
  });
}

/** GET /dags/search: the DAG files whose text holds `q`, with the matching lines; nothing asked for ''. */
export function useDagSearch(q: string) {
  return useQuery({
    queryKey: [...keys.dags, 'search', q],
    queryFn: ({ signal }) => must(api.GET('/dags/search', { params: { query: { q } }, signal })),
    enabled: q.trim() !== '',
  });
}

export function useDag(fileName: string) {
  return useQuery({
    queryKey: keys.dag(fileName),
    queryFn: async ({ signal }) => (await must(api.GET('/dags/{fileName}', { params: { path: { fileName } }, signal }))) as DagDetail,
  });
}

/** The DAG's latest run with its nodes, or null when it has none. */
export function useLatestRun(fileName: string) {
  return useQuery({
    queryKey: keys.latest(fileName),
    queryFn: async ({ signal }): Promise<DagRunDetail | null> =>
      (await orNull(api.GET('/dags/{fileName}/dag-runs/{dagRunId}', { params: { path: { fileName, dagRunId: 'latest' } }, signal })))?.dagRun ?? null,
  });
}

export function useRun(name: string, dagRunId: string) {
  return useQuery({
    queryKey: keys.run(name, dagRunId),
    queryFn: async ({ signal }) => (await must(api.GET('/dag-runs/{name}/{dagRunId}', { params: { path: { name, dagRunId } }, signal }))).dagRun,
  });
}

/** The run's collected outputs (written when it ends; secrets masked by the server). */
export function useOutputs(name: string, dagRunId: string, enabled: boolean) {
  return useQuery({
    queryKey: [...keys.run(name, dagRunId), 'outputs'],
    queryFn: ({ signal }) => must(api.GET('/dag-runs/{name}/{dagRunId}/outputs', { params: { path: { name, dagRunId } }, signal })),
    enabled,
  });
}

/** A page of a step's log: its tail (read again as the step writes), or LOG_PAGE lines from a line. */
export function useStepLog(name: string, dagRunId: string, stepName: string, stream: 'stdout' | 'stderr', window: LogWindow) {
  return useQuery({
    queryKey: [...keys.log(name, dagRunId, stepName, stream), window],
    queryFn: ({ signal }) => must(api.GET('/dag-runs/{name}/{dagRunId}/steps/{stepName}/log', {
      params: { path: { name, dagRunId, stepName }, query: { stream, ...logQuery(window, LOG_PAGE) } }, signal,
    })),
    // The page before stays on screen while the next one of the same stream is read (never another stream's).
    placeholderData: (prev, prevQuery) => (prevQuery?.queryKey[5] === stream ? prev : undefined),
  });
}

export function useSuspend() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ fileName, suspend }: { fileName: string; suspend: boolean }) =>
      must(api.POST('/dags/{fileName}/suspend', { params: { path: { fileName } }, body: { suspend } })),
    onSettled: (_d, _e, v) => Promise.all([qc.invalidateQueries({ queryKey: keys.dags }), qc.invalidateQueries({ queryKey: keys.dag(v.fileName) })]),
  });
}

export interface StartInput {
  fileName: string;
  params?: string;
  dagRunId?: string;
}

export function useStart() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ fileName, ...body }: StartInput) => must(api.POST('/dags/{fileName}/start', { params: { path: { fileName } }, body })),
    onSuccess: (_d, v) => Promise.all([qc.invalidateQueries({ queryKey: keys.dag(v.fileName) }), qc.invalidateQueries({ queryKey: keys.dags })]),
  });
}

export function useStop() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, dagRunId }: { name: string; dagRunId: string }) =>
      must(api.POST('/dag-runs/{name}/{dagRunId}/stop', { params: { path: { name, dagRunId } } })),
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: ['run'] }), qc.invalidateQueries({ queryKey: ['dag'] }), qc.invalidateQueries({ queryKey: keys.dags })]),
  });
}

/** Every run-related query: after a run changes by a user's hand, its pages and lists are read again. */
const invalidateRuns = (qc: ReturnType<typeof useQueryClient>) =>
  Promise.all([qc.invalidateQueries({ queryKey: ['run'] }), qc.invalidateQueries({ queryKey: ['dag'] }), qc.invalidateQueries({ queryKey: keys.dags }), qc.invalidateQueries({ queryKey: ['runs'] }), qc.invalidateQueries({ queryKey: ['queues'] })]);

export interface RetryInput {
  name: string;
  dagRunId: string;
  /** A new run under this id (the finished one stays as it is); without it, a new attempt of the same run. */
  newDagRunId?: string;
  /** Only this step runs again. */
  stepName?: string;
}

export function useRetry() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, dagRunId, newDagRunId, stepName }: RetryInput) => must(api.POST('/dag-runs/{name}/{dagRunId}/retry', {
      params: { path: { name, dagRunId } }, body: { ...(newDagRunId ? { dagRunId: newDagRunId } : {}), ...(stepName ? { stepName } : {}) },
    })),
    onSettled: () => invalidateRuns(qc),
  });
}

/** The sub-DAG runs the run's steps started (direct children), under the run's key: live with it. */
export function useSubRuns(name: string, dagRunId: string) {
  return useQuery({
    queryKey: [...keys.run(name, dagRunId), 'sub-runs'],
    queryFn: async ({ signal }) => (await must(api.GET('/dag-runs/{name}/{dagRunId}/sub-dag-runs', { params: { path: { name, dagRunId } }, signal }))).subRuns,
  });
}

/** Sets a step's status on a finished run (SPEC 3.2 code 0-5); the server recomputes the run's status. */
export function useSetStepStatus() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, dagRunId, step, status }: { name: string; dagRunId: string; step: string; status: number }) =>
      must(api.PATCH('/dag-runs/{name}/{dagRunId}/steps/{stepName}/status', { params: { path: { name, dagRunId, stepName: step } }, body: { status } })),
    onSettled: () => invalidateRuns(qc),
  });
}

/** Takes a queued run out of its queue (it ends aborted). A GET that changes things, as the API has it. */
export function useDequeue() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, dagRunId }: { name: string; dagRunId: string }) =>
      must(api.GET('/dag-runs/{name}/{dagRunId}/dequeue', { params: { path: { name, dagRunId } } })),
    onSettled: () => invalidateRuns(qc),
  });
}

export function useEnqueue() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ fileName, ...body }: StartInput & { queue?: string }) => must(api.POST('/dags/{fileName}/enqueue', { params: { path: { fileName } }, body })),
    onSettled: () => invalidateRuns(qc),
  });
}

/** Statuses of the runs a queue holds: running, waiting for an approval (both hold a slot), queued. */
const QUEUE_STATUSES = [1, 7, 5] as const;

/** Every root run of a status, page after page (GET /dag-runs answers a page: 100 by default, 1000 at most). */
async function runsOfStatus(status: (typeof QUEUE_STATUSES)[number], signal: AbortSignal) {
  const runs = [];
  let cursor: string | undefined;
  do {
    const r = await must(api.GET('/dag-runs', { params: { query: { status, limit: 1000, ...(cursor ? { cursor } : {}) } }, signal }));
    runs.push(...r.dagRuns);
    cursor = r.nextCursor ?? undefined;
  } while (cursor);
  return runs;
}

/** Every root run that holds or waits for a queue slot (GET /dag-runs per status). */
export function useQueueRuns() {
  return useQuery({
    queryKey: ['queues', 'runs'],
    queryFn: async ({ signal }) => (await Promise.all(QUEUE_STATUSES.map((status) => runsOfStatus(status, signal)))).flat(),
  });
}

/** The details of these DAGs (their `queue` and `maxActiveRuns`), from the same cache as their pages. */
export function useDagDetails(fileNames: readonly string[]) {
  return useQueries({
    queries: fileNames.map((fileName) => ({
      queryKey: keys.dag(fileName),
      queryFn: async ({ signal }: { signal: AbortSignal }) => (await must(api.GET('/dags/{fileName}', { params: { path: { fileName } }, signal }))) as DagDetail,
      staleTime: 30_000,
    })),
  });
}

/** The workers, read again every `everyMs` (the dashboard 10 s; the Workers page more often). */
export function useWorkers(everyMs = 10_000) {
  return useQuery({
    queryKey: ['workers'],
    queryFn: async ({ signal }) => (await must(api.GET('/workers', { signal }))).workers,
    refetchInterval: everyMs,
  });
}

export function useResources() {
  return useQuery({
    queryKey: ['resources'],
    queryFn: ({ signal }) => must(api.GET('/services/resources/history', { signal })),
    refetchInterval: 30_000,
  });
}

export interface Decision {
  name: string;
  dagRunId: string;
  step: string;
  /** Approve with these inputs, or reject with this reason ('' for none). */
  decision: { approve: Record<string, string> } | { reject: string };
}

/** Approve or reject a waiting hitl step. */
export function useDecide() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, dagRunId, step, decision }: Decision) => {
      const path = { name, dagRunId, stepName: step };
      return 'approve' in decision
        ? must(api.POST('/dag-runs/{name}/{dagRunId}/steps/{stepName}/approve', { params: { path }, body: { inputs: decision.approve } }))
        : must(api.POST('/dag-runs/{name}/{dagRunId}/steps/{stepName}/reject', { params: { path }, body: decision.reject ? { reason: decision.reject } : {} }));
    },
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: ['run'] }), qc.invalidateQueries({ queryKey: ['dag'] })]),
  });
}

/** The DAG's YAML text as written (GET /dags/{fileName}/spec). */
export function useDagSpec(fileName: string) {
  return useQuery({
    queryKey: keys.spec(fileName),
    queryFn: ({ signal }) => must(api.GET('/dags/{fileName}/spec', { params: { path: { fileName } }, signal })),
    // Read once per visit of the tab (dropped when it closes): the text under edit is the editor's then.
    refetchOnWindowFocus: false,
    staleTime: Infinity,
    gcTime: 0,
  });
}

/** PUT /dags/{fileName}/spec: `errors` empty when saved; otherwise nothing was saved. */
export function useSaveSpec(fileName: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (spec: string) => must(api.PUT('/dags/{fileName}/spec', { params: { path: { fileName } }, body: { spec } })),
    onSuccess: async (r, spec) => {
      if (r.errors.length > 0) return;
      qc.setQueryData(keys.spec(fileName), (old: { dag: { name: string }; spec: string; errors: string[] } | undefined) => old && { ...old, spec, errors: [] });
      await Promise.all([qc.invalidateQueries({ queryKey: keys.dag(fileName), predicate: (q) => q.queryKey[2] !== 'spec' }), qc.invalidateQueries({ queryKey: keys.dags })]);
    },
  });
}

/** POST /dags: a new DAG file; 400 with `details.errors` when the server finds problems in the spec. */
export function useCreateDag() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; spec: string }) => must(api.POST('/dags', { body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.dags }),
  });
}

type DagList = { dags: Array<{ fileName: string }> };

/** The DAG list in the cache without `fileName` (a list read before it went never shows it again). */
function dropFromList(qc: ReturnType<typeof useQueryClient>, fileName: string): Promise<void> {
  qc.removeQueries({ queryKey: keys.dag(fileName) });
  qc.setQueriesData<DagList>({ queryKey: keys.dags }, (old) => old && 'dags' in old ? { ...old, dags: old.dags.filter((d) => d.fileName !== fileName) } : old);
  return qc.invalidateQueries({ queryKey: keys.dags });
}

export function useDeleteDag() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (fileName: string) => must(api.DELETE('/dags/{fileName}', { params: { path: { fileName } } })),
    onSuccess: (_d, fileName) => dropFromList(qc, fileName),
  });
}

export function useRenameDag() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ fileName, newFileName }: { fileName: string; newFileName: string }) =>
      must(api.POST('/dags/{fileName}/rename', { params: { path: { fileName } }, body: { newFileName } })),
    onSuccess: (_d, v) => dropFromList(qc, v.fileName),
  });
}

/** Whether the server offers OIDC login, its button's label and where it starts (GET /auth/oidc, public). */
export function useOidcInfo() {
  return useQuery({
    queryKey: ['auth', 'oidc'],
    queryFn: ({ signal }) => must(api.GET('/auth/oidc', { signal })),
    staleTime: Infinity,
  });
}

export function useLogin() {
  return useMutation({
    mutationFn: (body: { username: string; password: string }) => must(api.POST('/auth/login', { body })),
  });
}

/** The server's health (GET /health; a 503 still carries the same fields, with `error`). */
export function useHealth() {
  return useQuery({
    queryKey: ['health'],
    queryFn: async ({ signal }): Promise<Health> => {
      const answer = await api.GET('/health', { signal });
      const { error, response } = answer;
      if (response.status === 503 && error && typeof error === 'object' && 'status' in error) return error as Health;
      return must(Promise.resolve(answer));
    },
    refetchInterval: 10_000,
  });
}
