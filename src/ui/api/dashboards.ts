import { useRef, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { DELETE, GET, POST, PUT } from './client.ts';
import type { components } from './openapi.gen.ts';
import type { chartDataBody, DashboardDefinitionInput } from '../../modules/dashboards/schemas.ts';

type Schemas = components['schemas'];
export type Dashboard = Schemas['Dashboard'];
export type ChartData = Schemas['ChartData'];
export type DashboardChart = Schemas['DashboardChart'];
export type { DashboardDefinitionInput };
export { DISPLAYS, GRID_COLUMNS, MAX_CHART_HEIGHT, MAX_CHARTS, METRICS, PERCENTILE_METRICS, RELATIVE_RANGES, PER_EVALUATION_METRICS, PER_SCORE_CONFIG_METRICS, UNGROUPED_METRICS } from '../../modules/dashboards/schemas.ts';

export const dashboardKeys = {
  list: (projectId: string) => ['dashboards', projectId] as const,
  one: (projectId: string, id: string) => ['dashboard', projectId, id] as const,
  chart: (projectId: string, id: string, version: number, chart: unknown, body: unknown) => ['dashboard-chart', projectId, id, version, chart, body] as const,
};
const at = (id: string) => ({ params: { path: { id } } });

export function useDashboards(projectId: string) {
  return useQuery({ queryKey: dashboardKeys.list(projectId), queryFn: async ({ signal }) => (await GET('/api/dashboards', { projectId, signal })).data });
}

export function useDashboard(projectId: string, id: string) {
  return useQuery({ queryKey: dashboardKeys.one(projectId, id), queryFn: ({ signal }) => GET('/api/dashboards/{id}', { ...at(id), projectId, signal }) });
}

/** One chart's data as saved in `version` of its dashboard (the chart's definition is in the key: a moved chart is not read again). */
export function useChartData(projectId: string, id: string, version: number, chart: DashboardChart, body: z.input<typeof chartDataBody>) {
  const { layout: _layout, ...what } = chart;
  return useQuery({
    queryKey: dashboardKeys.chart(projectId, id, version, what, body),
    queryFn: ({ signal }) => POST('/api/dashboards/{id}/charts/{chartId}/data', { params: { path: { id, chartId: chart.id } }, projectId, signal, body }),
    placeholderData: keepPreviousData,
  });
}

export function useDashboardMutations(projectId: string) {
  const client = useQueryClient();
  const saved = (d: Dashboard) => {
    client.setQueryData(dashboardKeys.one(projectId, d.id), d);
    return client.invalidateQueries({ queryKey: dashboardKeys.list(projectId) });
  };
  return {
    create: useMutation({ mutationFn: (body: DashboardDefinitionInput) => POST('/api/dashboards', { projectId, body }), onSuccess: saved }),
    /** Saved over `version` (the one on screen) only: someone else's save since is refused (412), not overwritten. */
    put: useMutation({
      mutationFn: ({ id, body, version }: { id: string; body: DashboardDefinitionInput; version: number }) =>
        PUT('/api/dashboards/{id}', { ...at(id), projectId, body, headers: { 'if-match': `"${version}"` } }),
      onSuccess: saved,
    }),
    /** Reads the stored dashboard again (after a 412: someone else's version). */
    reload: (id: string) => client.invalidateQueries({ queryKey: dashboardKeys.one(projectId, id) }),
    remove: useMutation({
      mutationFn: (id: string) => DELETE('/api/dashboards/{id}', { ...at(id), projectId }),
      onSuccess: (_r, id) => Promise.all([client.invalidateQueries({ queryKey: dashboardKeys.list(projectId) }), client.invalidateQueries({ queryKey: dashboardKeys.one(projectId, id) })]),
    }),
  };
}

/**
 * A dashboard's saves from one page, one at a time, each over the version the one before it made:
 * a change made while a save is under way (a second drag on a slow network, an arrow key pressed
 * again and again) waits for it, and only the latest such change is sent after it. Sent side by
 * side, the later one would go over the version on screen and be refused as someone else's save
 * (412), losing this person's own change. `unsaved`: what is being saved, or waits, until it is.
 */
export function useDashboardSaves(projectId: string, dashboard: Dashboard) {
  const { put } = useDashboardMutations(projectId);
  const definition = dashboard.definition as DashboardDefinitionInput;
  const sending = useRef<DashboardDefinitionInput | null>(null);
  const waiting = useRef<DashboardDefinitionInput | null>(null);
  const [queued, setQueued] = useState<DashboardDefinitionInput | null>(null);
  const wait = (body: DashboardDefinitionInput | null) => {
    waiting.current = body;
    setQueued(body);
  };
  const send = async (body: DashboardDefinitionInput, version: number) => {
    try {
      for (let next: DashboardDefinitionInput | null = body; next; next = waiting.current) {
        wait(null);
        sending.current = next;
        version = (await put.mutateAsync({ id: dashboard.id, version, body: next })).version;
      }
    } catch {
      // Refused or failed: what waited was made on top of it, so it is not sent either (put.error says so).
      wait(null);
    } finally {
      sending.current = null;
    }
  };
  const save = (next: Partial<DashboardDefinitionInput>) => {
    // Over what this page last asked to save.
    const body = { ...(waiting.current ?? sending.current ?? definition), ...next };
    if (sending.current) wait(body);
    else void send(body, dashboard.version);
  };
  const unsaved = queued ?? (put.isPending ? (put.variables?.body ?? null) : null);
  return { save, unsaved, put };
}
