import { keepPreviousData, useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { Baseline, RunSummary, CompareRows, Comparison, DefinitionBody, Experiment, ExperimentDefinition, ExperimentRunList, Regressions, RunRows, RunStatus, StartedRun } from './types.ts';

/** The experiments pages' reads (docs/experiments.md); every one a project route. */

const q = (params: Record<string, string | number | undefined>) =>
  Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

export function useExperiments(projectId: string) {
  return useQuery({
    queryKey: ['experiments', projectId],
    queryFn: ({ signal }) => api<{ experiments: Experiment[] }>('GET', `/api/experiments?${q({ page: 1, pageSize: 200 })}`, { projectId, signal }),
    select: (d) => d.experiments,
  });
}

export const runsQuery = (projectId: string, slug: string) => ({
  queryKey: ['experiment-runs', projectId, slug],
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    api<ExperimentRunList>('GET', `/api/experiments/runs?${q({ experimentSlug: slug, page: 1, pageSize: 200 })}`, { projectId, signal }),
});

/** An experiment's runs; read again every 3 s while one of them is running. */
export function useRuns(projectId: string, slug: string) {
  return useQuery({
    ...runsQuery(projectId, slug),
    refetchInterval: (query) => (query.state.data?.runs.some((r) => r.timestamps.finishedAt === null && r.timestamps.stoppedAt === null && Date.now() - r.timestamps.updatedAt < 600_000) ? 3000 : false),
  });
}

/** The last runs of each experiment (the list's last run and trend), read side by side. */
export function useRunsOf(projectId: string, slugs: string[]) {
  return useQueries({ queries: slugs.map((slug) => ({ ...runsQuery(projectId, slug), staleTime: 15_000 })) });
}

/** Lines a page of the run table reads. */
export const RUN_ROWS_PAGE = 100;

export interface RunRowsView {
  sortBy?: string;
  dir?: 'asc' | 'desc';
  where: string[];
}

const runRowsQuery = (projectId: string, slug: string, runId: string, view: RunRowsView, page: number, refetchInterval: number | false) => ({
  queryKey: ['run-rows', projectId, slug, runId, view.sortBy ?? '', view.dir ?? '', view.where.join('\u0000'), page],
  queryFn: ({ signal }: { signal: AbortSignal }) => {
    const params = new URLSearchParams({ page: String(page), pageSize: String(RUN_ROWS_PAGE) });
    if (view.sortBy) params.set('sortBy', view.sortBy);
    if (view.dir) params.set('sortDirection', view.dir);
    for (const w of view.where) params.append('where', w);
    return api<RunRows>('GET', `/api/experiments/${encodeURIComponent(slug)}/runs/${encodeURIComponent(runId)}/rows?${params}`, { projectId, signal });
  },
  staleTime: 5_000,
  refetchInterval,
});

/**
 * A run's lines as the server filters and sorts them, a page at a time: the first page (the
 * columns and the number of lines), and the pages `pages` asks for (those in view).
 */
export function useRunRows(projectId: string, slug: string, runId: string, view: RunRowsView, pages: number[], refetchInterval: number | false) {
  const first = useQuery({ ...runRowsQuery(projectId, slug, runId, view, 1, refetchInterval), placeholderData: keepPreviousData });
  const rest = useQueries({ queries: pages.filter((p) => p > 1).map((p) => runRowsQuery(projectId, slug, runId, view, p, refetchInterval)) });
  return { first, rest };
}

/** The run's first lines without filter or sort: its columns and its number of lines. */
export function useRunShape(projectId: string, slug: string, runId: string, refetchInterval: number | false) {
  return useQuery(runRowsQuery(projectId, slug, runId, { where: [] }, 1, refetchInterval));
}

export function useRunStatus(projectId: string, slug: string, runId: string | undefined) {
  return useQuery({
    queryKey: ['run-status', projectId, slug, runId],
    queryFn: ({ signal }) => api<RunStatus>('GET', `/api/experiments/runs/${encodeURIComponent(runId ?? '')}?${q({ experimentSlug: slug })}`, { projectId, signal }),
    enabled: !!runId,
    // Live progress: every 1.5 s while the run is going, then never again.
    refetchInterval: (query) => (query.state.data?.status === 'running' || query.state.data?.status === 'pending' ? 1500 : false),
  });
}

// ---- runs compared, regressions and the baseline (computed by the server)

export function useBaseline(projectId: string, slug: string) {
  return useQuery({
    queryKey: ['experiment-baseline', projectId, slug],
    queryFn: ({ signal }) => api<Baseline>('GET', `/api/experiments/${encodeURIComponent(slug)}/baseline`, { projectId, signal }),
  });
}

export function useMarkBaseline(projectId: string, slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (runId: string | null) => api<Baseline>('PUT', `/api/experiments/${encodeURIComponent(slug)}/baseline`, { projectId, body: { runId } }),
    onSuccess: (data) => {
      client.setQueryData(['experiment-baseline', projectId, slug], data);
      return client.invalidateQueries({ predicate: (q) => q.queryKey[0] === 'compare' || q.queryKey[0] === 'experiment-verdict' });
    },
  });
}

export const compareQuery = (projectId: string, slug: string, runIds: string[], baseline?: string) => ({
  queryKey: ['compare', projectId, slug, runIds.join(','), baseline ?? ''],
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    api<Comparison>('GET', `/api/experiments/${encodeURIComponent(slug)}/compare?${q({ runs: runIds.join(','), baseline })}`, { projectId, signal }),
});

export function useComparison(projectId: string, slug: string, runIds: string[], baseline?: string) {
  return useQuery({ ...compareQuery(projectId, slug, runIds, baseline), enabled: runIds.length >= 2 });
}

/** Per experiment, its last run against its baseline (null: no baseline, or the last run is the baseline). */
export function useVerdicts(projectId: string, items: { slug: string; lastRunId: string | undefined }[], baselines: (string | null | undefined)[]) {
  return useQueries({
    queries: items.map((it, i) => {
      const baseline = baselines[i];
      const runIds = baseline && it.lastRunId && it.lastRunId !== baseline ? [baseline, it.lastRunId] : [];
      return { ...compareQuery(projectId, it.slug, runIds, baseline ?? undefined), queryKey: ['experiment-verdict', projectId, it.slug, runIds.join(',')], enabled: runIds.length === 2, staleTime: 15_000 };
    }),
  });
}

export function useBaselines(projectId: string, slugs: string[]) {
  return useQueries({
    queries: slugs.map((slug) => ({
      queryKey: ['experiment-baseline', projectId, slug],
      queryFn: ({ signal }: { signal: AbortSignal }) => api<Baseline>('GET', `/api/experiments/${encodeURIComponent(slug)}/baseline`, { projectId, signal }),
      staleTime: 15_000,
    })),
  });
}

const COMPARE_PAGE = 100;

/** The compared runs' rows side by side, 100 at a time (the server joins and pages them). */
export function useCompareRows(projectId: string, slug: string, runIds: string[]) {
  return useInfiniteQuery({
    queryKey: ['compare', 'rows', projectId, slug, runIds.join(',')],
    queryFn: ({ pageParam, signal }) =>
      api<CompareRows>('GET', `/api/experiments/${encodeURIComponent(slug)}/compare/rows?${q({ runs: runIds.join(','), page: pageParam, pageSize: COMPARE_PAGE })}`, { projectId, signal }),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.page + 1 : undefined),
    enabled: runIds.length >= 2,
  });
}

/** What regressed (or improved) from the baseline to one run, 100 at a time. */
export function useRegressions(projectId: string, slug: string, baseline: string, runId: string, direction: 'regressed' | 'improved') {
  return useInfiniteQuery({
    queryKey: ['compare', 'regressions', projectId, slug, baseline, runId, direction],
    queryFn: ({ pageParam, signal }) =>
      api<Regressions>(
        'GET',
        `/api/experiments/${encodeURIComponent(slug)}/compare/regressions?${q({ runs: `${baseline},${runId}`, baseline, direction, page: pageParam, pageSize: COMPARE_PAGE })}`,
        { projectId, signal },
      ),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.page + 1 : undefined),
    enabled: !!baseline && !!runId && baseline !== runId,
  });
}

/** A run's statistics with their 95% intervals (the server's: bootstrap, Wilson, order statistics). */
export function useRunSummary(projectId: string, slug: string, runId: string, refetchInterval: number | false) {
  return useQuery({
    queryKey: ['run-summary', projectId, slug, runId],
    queryFn: ({ signal }) => api<RunSummary>('GET', `/api/experiments/${encodeURIComponent(slug)}/runs/${encodeURIComponent(runId)}/summary`, { projectId, signal }),
    refetchInterval,
  });
}

// ---- a platform-run experiment's setup

const definitionPath = (slug: string) => `/api/experiments/${encodeURIComponent(slug)}/definition`;

/** The saved setup; a 404 (no setup yet: a new experiment) is not retried. */
export function useDefinition(projectId: string, slug: string) {
  return useQuery({
    queryKey: ['experiment-definition', projectId, slug],
    queryFn: ({ signal }) => api<ExperimentDefinition>('GET', definitionPath(slug), { projectId, signal }),
    retry: false,
  });
}

export function useSaveDefinition(projectId: string, slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: DefinitionBody) => api<ExperimentDefinition>('PUT', definitionPath(slug), { projectId, body }),
    onSuccess: (saved) => {
      qc.setQueryData(['experiment-definition', projectId, slug], saved);
      void qc.invalidateQueries({ queryKey: ['experiments', projectId] });
    },
  });
}

export function useStartRun(projectId: string, slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api<StartedRun>('POST', `/api/experiments/${encodeURIComponent(slug)}/run`, { projectId, body: {} }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['experiment-runs', projectId, slug] }),
  });
}
