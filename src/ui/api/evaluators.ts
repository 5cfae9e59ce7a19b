import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import { utcOffsetMinutes } from '../lib/format.ts';
import type { BackfillBody as BackfillRequestOut, BackfillPreview, BackfillView as MonitorBackfill } from '../../modules/monitors/schemas.ts';
import type { CatalogueEntry, CreateMonitorBody, EvaluateBody, EvaluationResult, Monitor, MonitorResultsResponse, MonitorStatsResponse, UpdateMonitorBody } from './types.ts';

export type Evaluator = CatalogueEntry;
export type { BackfillPreview, MonitorBackfill };
export type BackfillRequest = Partial<BackfillRequestOut> & Pick<BackfillRequestOut, 'startDate'>;

/** The evaluator catalogue (it never changes while the server runs). */
export function useCatalogue(projectId: string) {
  return useQuery({
    queryKey: ['evaluators', projectId],
    queryFn: async ({ signal }) => (await api<{ evaluators: Evaluator[] }>('GET', '/api/evaluations', { projectId, signal })).evaluators,
    staleTime: 5 * 60_000,
  });
}

export function useEvaluate(projectId: string, path: string) {
  return useMutation({
    mutationFn: async (body: EvaluateBody) => (await api<EvaluationResult[]>('POST', `/api/evaluations/${path}/evaluate`, { projectId, body }))[0],
  });
}

export function useMonitors(projectId: string) {
  return useQuery({ queryKey: ['monitors', projectId], queryFn: async ({ signal }) => (await api<{ data: Monitor[] }>('GET', '/api/monitors', { projectId, signal })).data });
}

export function useMonitor(projectId: string, id: string) {
  return useQuery({ queryKey: ['monitor', projectId, id], queryFn: ({ signal }) => api<Monitor>('GET', `/api/monitors/${encodeURIComponent(id)}`, { projectId, signal }) });
}

export function useMonitorMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = (m: Monitor) => {
    client.setQueryData(['monitor', projectId, m.id], m);
    return client.invalidateQueries({ queryKey: ['monitors', projectId] });
  };
  return {
    create: useMutation({ mutationFn: (body: CreateMonitorBody) => api<Monitor>('POST', '/api/monitors', { projectId, body }), onSuccess: refresh }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: UpdateMonitorBody }) => api<Monitor>('PATCH', `/api/monitors/${encodeURIComponent(id)}`, { projectId, body }),
      onSuccess: refresh,
    }),
    remove: useMutation({
      mutationFn: (id: string) => api('DELETE', `/api/monitors/${encodeURIComponent(id)}`, { projectId }),
      onSuccess: () => client.invalidateQueries({ queryKey: ['monitors', projectId] }),
    }),
  };
}

/** The newest 100 results, or the newest 100 failed ones. */
export function useMonitorResults(projectId: string, id: string, onlyFailed: boolean) {
  return useQuery({
    queryKey: ['monitor-results', projectId, id, onlyFailed],
    queryFn: ({ signal }) => api<MonitorResultsResponse>('GET', `/api/monitors/${encodeURIComponent(id)}/results?pageSize=100${onlyFailed ? '&outcome=failed' : ''}`, { projectId, signal }),
    refetchInterval: 5000,
  });
}

/** Results per interval over the last `rangeMs` up to the server's now, asked again every 5 s. */
export function useMonitorStats(projectId: string, id: string, rangeMs: number) {
  return useQuery({
    queryKey: ['monitor-stats', projectId, id, rangeMs],
    queryFn: ({ signal }) => api<MonitorStatsResponse>('GET', `/api/monitors/${encodeURIComponent(id)}/stats?startDate=${Date.now() - rangeMs}&utcOffsetMinutes=${utcOffsetMinutes()}`, { projectId, signal }),
    refetchInterval: 5000,
  });
}

/** A result's badge colour: white text on these shades meets WCAG AA. */
export const resultColor = (r: { status: string; passed?: boolean | null }) => (r.status === 'error' || r.passed === false ? 'red.9' : r.status === 'skipped' ? 'gray.7' : 'teal.9');

const backfillsKey = (projectId: string, monitorId: string) => ['monitor-backfills', projectId, monitorId] as const;
const monitorPath = (id: string) => `/api/monitors/${encodeURIComponent(id)}`;

/** The monitor's runs over past traces, newest first; asked again every second while one runs. */
export function useMonitorBackfills(projectId: string, monitorId: string) {
  return useQuery({
    queryKey: backfillsKey(projectId, monitorId),
    queryFn: async ({ signal }) => (await api<{ data: MonitorBackfill[] }>('GET', `${monitorPath(monitorId)}/backfills`, { projectId, signal })).data,
    refetchInterval: (q) => (q.state.data?.some((b) => b.state === 'queued' || b.state === 'running') ? 1000 : false),
  });
}

/** How many traces a run over `body`'s range would evaluate, and its estimated cost. */
export function useBackfillPreview(projectId: string, monitorId: string, body: BackfillRequest | null) {
  return useQuery({
    queryKey: ['monitor-backfill-preview', projectId, monitorId, body],
    queryFn: ({ signal }) => api<BackfillPreview>('POST', `${monitorPath(monitorId)}/backfill/preview`, { projectId, body, signal }),
    enabled: body !== null,
    staleTime: 30_000,
  });
}

export function useBackfillMutations(projectId: string, monitorId: string) {
  const client = useQueryClient();
  const refresh = async () => {
    await client.invalidateQueries({ queryKey: backfillsKey(projectId, monitorId) });
    // A run changes what the next one would evaluate.
    await client.invalidateQueries({ queryKey: ['monitor-backfill-preview', projectId, monitorId] });
  };
  return {
    start: useMutation({ mutationFn: (body: BackfillRequest) => api<MonitorBackfill>('POST', `${monitorPath(monitorId)}/backfill`, { projectId, body }), onSuccess: refresh }),
    cancel: useMutation({ mutationFn: (id: string) => api<MonitorBackfill>('POST', `${monitorPath(monitorId)}/backfills/${encodeURIComponent(id)}/cancel`, { projectId }), onSuccess: refresh }),
  };
}
