import { useCallback } from 'react';
import { keepPreviousData, useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { GET, PATCH, POST, PUT, type Answer } from './client.ts';
import type { DefinitionBody } from './types.ts';

export type Experiment = Answer<'/api/experiments', 'get'>['experiments'][number];
export type ExperimentRun = Answer<'/api/experiments/runs', 'get'>['runs'][number];
export type Baseline = Answer<'/api/experiments/{slug}/baseline', 'get'>;
export type Comparison = Answer<'/api/experiments/{slug}/compare', 'get'>;
export type EvaluatorComparison = Comparison['comparisons'][number]['evaluators'][number];
export type CompareRows = Answer<'/api/experiments/{slug}/compare/rows', 'get'>;
export type Regressions = Answer<'/api/experiments/{slug}/compare/regressions', 'get'>;
export type Estimate = NonNullable<Answer<'/api/experiments/{slug}/runs/{runId}/summary', 'get'>['overall']['cost']>;
export type RunRows = Answer<'/api/experiments/{slug}/runs/{runId}/rows', 'get'>;
export type ExperimentDefinition = Answer<'/api/experiments/{slug}/definition', 'get'>;

/** The experiments pages' reads (docs/experiments.md); every one a project route. */

export const experimentKeys = {
  all: (projectId: string) => ['experiments', projectId] as const,
  runs: (projectId: string, slug: string) => ['experiment-runs', projectId, slug] as const,
  /** A run's rows: every page and view of them (no view), or one page of one view. */
  runRows: (projectId: string, slug: string, runId: string, view?: RunRowsView, page?: number) =>
    view === undefined ? (['run-rows', projectId, slug, runId] as const) : (['run-rows', projectId, slug, runId, view.sortBy ?? '', view.dir ?? '', view.where.join('\u0000'), page ?? 1] as const),
  runStatus: (projectId: string, slug: string, runId: string | undefined) => ['run-status', projectId, slug, runId] as const,
  baseline: (projectId: string, slug: string) => ['experiment-baseline', projectId, slug] as const,
  compare: (projectId: string, slug: string, runIds: string[], baseline?: string) => ['compare', projectId, slug, runIds.join(','), baseline ?? ''] as const,
  verdict: (projectId: string, slug: string, runIds: string[]) => ['experiment-verdict', projectId, slug, runIds.join(',')] as const,
  compareRows: (projectId: string, slug: string, runIds: string[]) => ['compare', 'rows', projectId, slug, runIds.join(',')] as const,
  regressions: (projectId: string, slug: string, baseline: string, runId: string, direction: string) => ['compare', 'regressions', projectId, slug, baseline, runId, direction] as const,
  summary: (projectId: string, slug: string, runId: string) => ['run-summary', projectId, slug, runId] as const,
  definition: (projectId: string, slug: string) => ['experiment-definition', projectId, slug] as const,
};

const bySlug = (slug: string) => ({ path: { slug } });

export function useExperiments(projectId: string) {
  return useQuery({
    queryKey: experimentKeys.all(projectId),
    queryFn: ({ signal }) => GET('/api/experiments', { params: { query: { page: '1', pageSize: '200' } }, projectId, signal }),
    select: (d) => d.experiments,
  });
}

export const runsQuery = (projectId: string, slug: string) => ({
  queryKey: experimentKeys.runs(projectId, slug),
  queryFn: ({ signal }: { signal: AbortSignal }) => GET('/api/experiments/runs', { params: { query: { experimentSlug: slug, page: '1', pageSize: '200' } }, projectId, signal }),
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
  queryKey: experimentKeys.runRows(projectId, slug, runId, view, page),
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    GET('/api/experiments/{slug}/runs/{runId}/rows', {
      params: {
        path: { slug, runId },
        query: { page: String(page), pageSize: String(RUN_ROWS_PAGE), ...(view.sortBy ? { sortBy: view.sortBy } : {}), ...(view.dir ? { sortDirection: view.dir } : {}), ...(view.where.length ? { where: view.where } : {}) },
      },
      projectId,
      signal,
    }),
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

/** Every page of the run's lines read once more (when the run ends). */
export function useRefreshRunRows(projectId: string, slug: string, runId: string) {
  const client = useQueryClient();
  return useCallback(() => client.invalidateQueries({ queryKey: experimentKeys.runRows(projectId, slug, runId) }), [client, projectId, slug, runId]);
}

/** The run's first lines without filter or sort: its columns and its number of lines. */
export function useRunShape(projectId: string, slug: string, runId: string, refetchInterval: number | false) {
  return useQuery(runRowsQuery(projectId, slug, runId, { where: [] }, 1, refetchInterval));
}

export function useRunStatus(projectId: string, slug: string, runId: string | undefined) {
  return useQuery({
    queryKey: experimentKeys.runStatus(projectId, slug, runId),
    queryFn: ({ signal }) => GET('/api/experiments/runs/{runId}', { params: { path: { runId: runId ?? '' }, query: { experimentSlug: slug } }, projectId, signal }),
    enabled: !!runId,
    // Live progress: every 1.5 s while the run is going, then never again.
    refetchInterval: (query) => (query.state.data?.status === 'running' || query.state.data?.status === 'pending' ? 1500 : false),
  });
}

// ---- runs compared, regressions and the baseline (computed by the server)

const fetchBaseline = (projectId: string, slug: string, signal?: AbortSignal) => GET('/api/experiments/{slug}/baseline', { params: bySlug(slug), projectId, signal });

export function useBaseline(projectId: string, slug: string) {
  return useQuery({
    queryKey: experimentKeys.baseline(projectId, slug),
    queryFn: ({ signal }) => fetchBaseline(projectId, slug, signal),
  });
}

export function useMarkBaseline(projectId: string, slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (runId: string | null) => PUT('/api/experiments/{slug}/baseline', { params: bySlug(slug), projectId, body: { runId } }),
    onSuccess: (data) => {
      client.setQueryData(experimentKeys.baseline(projectId, slug), data);
      return client.invalidateQueries({ predicate: (q) => q.queryKey[0] === 'compare' || q.queryKey[0] === 'experiment-verdict' });
    },
  });
}

export const compareQuery = (projectId: string, slug: string, runIds: string[], baseline?: string) => ({
  queryKey: experimentKeys.compare(projectId, slug, runIds, baseline),
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    GET('/api/experiments/{slug}/compare', { params: { path: { slug }, query: { runs: runIds.join(','), ...(baseline ? { baseline } : {}) } }, projectId, signal }),
});

/** `enabled: false` holds it back (the comparison page asks for its first rows first). */
export function useComparison(projectId: string, slug: string, runIds: string[], baseline?: string, options: { enabled?: boolean } = {}) {
  return useQuery({ ...compareQuery(projectId, slug, runIds, baseline), enabled: runIds.length >= 2 && options.enabled !== false });
}

/** Per experiment, its last run against its baseline (null: no baseline, or the last run is the baseline). */
export function useVerdicts(projectId: string, items: { slug: string; lastRunId: string | undefined }[], baselines: (string | null | undefined)[]) {
  return useQueries({
    queries: items.map((it, i) => {
      const baseline = baselines[i];
      const runIds = baseline && it.lastRunId && it.lastRunId !== baseline ? [baseline, it.lastRunId] : [];
      return { ...compareQuery(projectId, it.slug, runIds, baseline ?? undefined), queryKey: experimentKeys.verdict(projectId, it.slug, runIds), enabled: runIds.length === 2, staleTime: 15_000 };
    }),
  });
}

export function useBaselines(projectId: string, slugs: string[]) {
  return useQueries({
    queries: slugs.map((slug) => ({
      queryKey: experimentKeys.baseline(projectId, slug),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchBaseline(projectId, slug, signal),
      staleTime: 15_000,
    })),
  });
}

const COMPARE_PAGE = 100;

/** The compared runs' rows side by side, 100 at a time (the server joins and pages them). */
export function useCompareRows(projectId: string, slug: string, runIds: string[], options: { enabled?: boolean } = {}) {
  return useInfiniteQuery({
    queryKey: experimentKeys.compareRows(projectId, slug, runIds),
    queryFn: ({ pageParam, signal }) =>
      GET('/api/experiments/{slug}/compare/rows', { params: { path: { slug }, query: { runs: runIds.join(','), page: String(pageParam), pageSize: String(COMPARE_PAGE) } }, projectId, signal }),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.page + 1 : undefined),
    enabled: runIds.length >= 2 && options.enabled !== false,
  });
}

/** What regressed (or improved) from the baseline to one run, 100 at a time. */
export function useRegressions(projectId: string, slug: string, baseline: string, runId: string, direction: 'regressed' | 'improved') {
  return useInfiniteQuery({
    queryKey: experimentKeys.regressions(projectId, slug, baseline, runId, direction),
    queryFn: ({ pageParam, signal }) =>
      GET('/api/experiments/{slug}/compare/regressions', {
        params: { path: { slug }, query: { runs: `${baseline},${runId}`, ...(baseline ? { baseline } : {}), direction, page: String(pageParam), pageSize: String(COMPARE_PAGE) } },
        projectId,
        signal,
      }),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.page + 1 : undefined),
    enabled: !!baseline && !!runId && baseline !== runId,
  });
}

/** A run's statistics with their 95% intervals (the server's: bootstrap, Wilson, order statistics). */
export function useRunSummary(projectId: string, slug: string, runId: string, refetchInterval: number | false) {
  return useQuery({
    queryKey: experimentKeys.summary(projectId, slug, runId),
    queryFn: ({ signal }) => GET('/api/experiments/{slug}/runs/{runId}/summary', { params: { path: { slug, runId } }, projectId, signal }),
    refetchInterval,
  });
}

// ---- a platform-run experiment's setup

/** The saved setup; a 404 (no setup yet: a new experiment) is not retried. */
export function useDefinition(projectId: string, slug: string) {
  return useQuery({
    queryKey: experimentKeys.definition(projectId, slug),
    queryFn: ({ signal }) => GET('/api/experiments/{slug}/definition', { params: bySlug(slug), projectId, signal }),
    retry: false,
  });
}

export function useSaveDefinition(projectId: string, slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: DefinitionBody) => PUT('/api/experiments/{slug}/definition', { params: bySlug(slug), projectId, body }),
    onSuccess: (saved) => {
      qc.setQueryData(experimentKeys.definition(projectId, slug), saved);
      void qc.invalidateQueries({ queryKey: experimentKeys.all(projectId) });
    },
  });
}

export function useStartRun(projectId: string, slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => POST('/api/experiments/{slug}/run', { params: bySlug(slug), projectId, body: {} }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: experimentKeys.runs(projectId, slug) }),
  });
}

/** Stops a running platform run; its status, rows and the runs list are read again. */
export function useStopRun(projectId: string, slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => POST('/api/experiments/{slug}/runs/{runId}/stop', { params: { path: { slug, runId } }, projectId }),
    onSuccess: (_answer, runId) => {
      void qc.invalidateQueries({ queryKey: experimentKeys.runStatus(projectId, slug, runId) });
      void qc.invalidateQueries({ queryKey: experimentKeys.runs(projectId, slug) });
    },
  });
}

/** Names a run (null: the name made from its prompts, models and start time). */
export function useRenameRun(projectId: string, slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ runId, name }: { runId: string; name: string | null }) => PATCH('/api/experiments/{slug}/runs/{runId}', { params: { path: { slug, runId } }, projectId, body: { name } }),
    onSuccess: (_answer, { runId }) => {
      void qc.invalidateQueries({ queryKey: experimentKeys.runs(projectId, slug) });
      void qc.invalidateQueries({ queryKey: experimentKeys.runStatus(projectId, slug, runId) });
    },
  });
}

/** Run id to the run's name (the runs list's), the id itself for a run not (yet) listed. */
export function useRunNames(projectId: string, slug: string): (runId: string) => string {
  const runs = useQuery(runsQuery(projectId, slug));
  const list = runs.data?.runs;
  return useCallback((runId: string) => list?.find((r) => r.runId === runId)?.name ?? runId, [list]);
}
