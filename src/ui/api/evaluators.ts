import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { GET, PATCH, POST, DELETE, type Answer } from './client.ts';
import { utcOffsetMinutes } from '../lib/format.ts';
import type { BackfillBody as BackfillRequestOut } from '../../modules/monitors/schemas.ts';
import type { CreateMonitorBody, EvaluateBody, UpdateMonitorBody } from './types.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type EvaluationResult = Extract<Answer<'/api/evaluations/{family}/{name}/evaluate', 'post'>, unknown[]>[number];
export type MonitorStatsResponse = Schemas['MonitorStats'];

export type Evaluator = Answer<'/api/evaluations', 'get'>['evaluators'][number];
export type Monitor = Answer<'/api/monitors/{id}', 'get'>;
/** When a monitor runs, in words: on each trace, once a thread is idle, or on its schedule (UTC). */
export function monitorTrigger(m: Pick<Monitor, 'unit' | 'idle_minutes' | 'schedule_minutes'>): string {
  if (m.unit !== 'thread') return 'each new trace';
  if (m.schedule_minutes !== null) return `threads, every ${minutesInWords(m.schedule_minutes)} (UTC)`;
  return `threads, once idle ${minutesInWords(m.idle_minutes ?? 0)}`;
}

const minutesInWords = (n: number) => (n % 1440 === 0 ? `${n / 1440} d` : n % 60 === 0 ? `${n / 60} h` : `${n} min`);

export type MonitorBackfill = Answer<'/api/monitors/{id}/backfills', 'get'>['data'][number];
export type BackfillPreview = Answer<'/api/monitors/{id}/backfill/preview', 'post'>;
export type BackfillRequest = Partial<BackfillRequestOut> & Pick<BackfillRequestOut, 'startDate'>;

export const evaluatorKeys = {
  catalogue: (projectId: string) => ['evaluators', projectId] as const,
  monitors: (projectId: string) => ['monitors', projectId] as const,
  monitor: (projectId: string, id: string) => ['monitor', projectId, id] as const,
  results: (projectId: string, id: string, onlyFailed: boolean) => ['monitor-results', projectId, id, onlyFailed] as const,
  stats: (projectId: string, id: string, rangeMs: number) => ['monitor-stats', projectId, id, rangeMs] as const,
  backfills: (projectId: string, monitorId: string) => ['monitor-backfills', projectId, monitorId] as const,
  /** Every preview of the monitor (no body), or one. */
  backfillPreview: (projectId: string, monitorId: string, body?: BackfillRequest | null) =>
    body === undefined ? (['monitor-backfill-preview', projectId, monitorId] as const) : (['monitor-backfill-preview', projectId, monitorId, body] as const),
};

/** The evaluator catalogue (it never changes while the server runs). */
export function useCatalogue(projectId: string) {
  return useQuery({
    queryKey: evaluatorKeys.catalogue(projectId),
    queryFn: async ({ signal }) => (await GET('/api/evaluations', { projectId, signal })).evaluators,
    staleTime: 5 * 60_000,
  });
}

/**
 * An evaluator's name for people, from the catalogue ("Exact match" for langevals/exact_match or
 * any of its aliases): every page names an evaluator through this, so it reads the same everywhere.
 * Until the catalogue is loaded, and for a path it lacks, the path itself.
 */
export function useEvaluatorName(projectId: string): (path: string) => string {
  const catalogue = useCatalogue(projectId);
  return (path) => catalogue.data?.find((e) => e.path === path || e.aliases.includes(path))?.name ?? path;
}

/** Run the evaluator at `path` (its catalogue entry's `family/name`) once on `body`. */
export function useEvaluate(projectId: string, path: string) {
  const slash = path.indexOf('/');
  const params = { path: { family: path.slice(0, slash), name: path.slice(slash + 1) } };
  return useMutation({
    mutationFn: async (body: EvaluateBody) => {
      // The answer is a list for a list of data (the page sends one item), one result otherwise.
      const answer = await POST('/api/evaluations/{family}/{name}/evaluate', { params, projectId, body });
      return Array.isArray(answer) ? answer[0] : answer;
    },
  });
}

const monitorAt = (id: string) => ({ params: { path: { id } } });

export function useMonitors(projectId: string) {
  return useQuery({ queryKey: evaluatorKeys.monitors(projectId), queryFn: async ({ signal }) => (await GET('/api/monitors', { projectId, signal })).data });
}

export function useMonitor(projectId: string, id: string) {
  return useQuery({ queryKey: evaluatorKeys.monitor(projectId, id), queryFn: ({ signal }) => GET('/api/monitors/{id}', { ...monitorAt(id), projectId, signal }) });
}

export function useMonitorMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = (m: Monitor) => {
    client.setQueryData(evaluatorKeys.monitor(projectId, m.id), m);
    return client.invalidateQueries({ queryKey: evaluatorKeys.monitors(projectId) });
  };
  return {
    create: useMutation({ mutationFn: (body: CreateMonitorBody) => POST('/api/monitors', { projectId, body }), onSuccess: refresh }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: UpdateMonitorBody }) => PATCH('/api/monitors/{id}', { ...monitorAt(id), projectId, body }),
      onSuccess: refresh,
    }),
    remove: useMutation({
      mutationFn: (id: string) => DELETE('/api/monitors/{id}', { ...monitorAt(id), projectId }),
      onSuccess: () => client.invalidateQueries({ queryKey: evaluatorKeys.monitors(projectId) }),
    }),
  };
}

/** The newest 100 results, or the newest 100 failed ones. */
export function useMonitorResults(projectId: string, id: string, onlyFailed: boolean) {
  return useQuery({
    queryKey: evaluatorKeys.results(projectId, id, onlyFailed),
    queryFn: ({ signal }) => GET('/api/monitors/{id}/results', { params: { path: { id }, query: { pageSize: 100, ...(onlyFailed ? { outcome: 'failed' as const } : {}) } }, projectId, signal }),
    refetchInterval: 5000,
  });
}

/** Results per interval over the last `rangeMs` up to the server's now, asked again every 5 s. */
export function useMonitorStats(projectId: string, id: string, rangeMs: number) {
  return useQuery({
    queryKey: evaluatorKeys.stats(projectId, id, rangeMs),
    queryFn: ({ signal }) => GET('/api/monitors/{id}/stats', { params: { path: { id }, query: { startDate: Date.now() - rangeMs, utcOffsetMinutes: utcOffsetMinutes() } }, projectId, signal }),
    refetchInterval: 5000,
  });
}

/** A result's badge colour: white text on these shades meets WCAG AA. */
export const resultColor = (r: { status: string; passed?: boolean | null }) => (r.status === 'error' || r.passed === false ? 'red.9' : r.status === 'skipped' ? 'gray.7' : 'teal.9');

/** The monitor's runs over past traces, newest first; asked again every second while one runs. */
export function useMonitorBackfills(projectId: string, monitorId: string) {
  return useQuery({
    queryKey: evaluatorKeys.backfills(projectId, monitorId),
    queryFn: async ({ signal }) => (await GET('/api/monitors/{id}/backfills', { ...monitorAt(monitorId), projectId, signal })).data,
    refetchInterval: (q) => (q.state.data?.some((b) => b.state === 'queued' || b.state === 'running') ? 1000 : false),
  });
}

/** How many traces a run over `body`'s range would evaluate, and its estimated cost. */
export function useBackfillPreview(projectId: string, monitorId: string, body: BackfillRequest | null) {
  return useQuery({
    queryKey: evaluatorKeys.backfillPreview(projectId, monitorId, body),
    queryFn: ({ signal }) => POST('/api/monitors/{id}/backfill/preview', { ...monitorAt(monitorId), projectId, body: body!, signal }),
    enabled: body !== null,
    staleTime: 30_000,
  });
}

export function useBackfillMutations(projectId: string, monitorId: string) {
  const client = useQueryClient();
  const refresh = async () => {
    await client.invalidateQueries({ queryKey: evaluatorKeys.backfills(projectId, monitorId) });
    // A run changes what the next one would evaluate.
    await client.invalidateQueries({ queryKey: evaluatorKeys.backfillPreview(projectId, monitorId) });
  };
  return {
    start: useMutation({ mutationFn: (body: BackfillRequest) => POST('/api/monitors/{id}/backfill', { ...monitorAt(monitorId), projectId, body }), onSuccess: refresh }),
    cancel: useMutation({
      mutationFn: (id: string) => POST('/api/monitors/{id}/backfills/{backfillId}/cancel', { params: { path: { id: monitorId, backfillId: id } }, projectId }),
      onSuccess: refresh,
    }),
  };
}
