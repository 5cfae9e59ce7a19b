import { epochMs } from '../../../platform/date-input.ts';
import { notFound } from '../../../platform/errors.ts';
import type { timeseriesRequestSchema } from '../../analytics/schemas.ts';
import type { TraceFilter } from '../../traces/schemas.ts';
import type { DashboardsContext } from '../context.ts';
import { readChart } from '../metrics.ts';
import { RELATIVE_RANGE_MS, PER_SCORE_CONFIG_METRICS, UNGROUPED_METRICS, type Chart, type ChartData, type chartDataBody, type DashboardDefinition, type TimeRange } from '../schemas.ts';
import { getDashboard } from './get-dashboard.ts';
import type { z } from 'zod';

/**
 * One chart's data: its query resolved (its own range, or the viewer's, or the dashboard's;
 * the dashboard's filters, the viewer's on top, the chart's on top of both; the viewer's
 * grouping for a chart that can be grouped), sent to the analytics series as is, and the
 * chart's metric read from the answer.
 */
export async function readChartData(ctx: DashboardsContext, projectId: string, dashboardId: string, chartId: string, body: z.output<typeof chartDataBody>): Promise<ChartData> {
  const dashboard = await getDashboard(ctx, projectId, dashboardId);
  const definition = dashboard.definition;
  const saved = definition.charts.find((c) => c.id === chartId);
  if (!saved) throw notFound('chart_not_found', `No chart ${chartId} in dashboard ${dashboardId}`);
  const chart = body.groupBy !== undefined && !UNGROUPED_METRICS.includes(saved.metric) ? { ...saved, groupBy: body.groupBy } : saved;
  const query = chartQuery(definition, chart, { ...body, now: body.now ?? ctx.clock.now().getTime() });
  const answer = await ctx.series(projectId, query);
  const { series, value } = readChart(chart, answer);
  return {
    dashboardId,
    chart,
    query,
    interval: answer.interval,
    intervalMs: answer.intervalMs,
    startDate: answer.startDate,
    endDate: answer.endDate,
    value,
    series: series.map((s) => ({ ...s, filters: seriesFilters(query.filters, chart, s) })),
  };
}

/** The analytics request a chart reads: what a script sends to POST /api/analytics/timeseries to check it. */
export function chartQuery(
  d: DashboardDefinition,
  chart: Chart,
  view: { timeRange?: TimeRange; query?: string; filters?: TraceFilter; now: number; utcOffsetMinutes: number },
): z.output<typeof timeseriesRequestSchema> & { startDate: number; endDate: number } {
  const range = chart.timeRange ?? view.timeRange ?? d.timeRange;
  const { startDate, endDate } = resolveRange(range, view.now);
  const filters = { ...(d.filters ?? {}), ...(view.filters ?? {}), ...(chart.filters ?? {}) };
  const query = chart.query ?? view.query ?? d.query;
  return {
    startDate,
    endDate,
    interval: chart.interval,
    utcOffsetMinutes: view.utcOffsetMinutes,
    ...(query ? { query } : {}),
    ...(Object.keys(filters).length ? { filters } : {}),
    groupBy: chart.groupBy,
  };
}

function resolveRange(r: TimeRange, now: number): { startDate: number; endDate: number } {
  if (r.last) return { startDate: now - RELATIVE_RANGE_MS[r.last], endDate: now };
  // The schema holds both dates when `last` is absent.
  return { startDate: epochMs(r.from!), endDate: epochMs(r.to!) };
}

/** The filter picking a series' traces: the chart's, narrowed to its group; null when no filter can say it. */
function seriesFilters(filters: TraceFilter | undefined, chart: Chart, s: { name: string; group: string | null; other: boolean }): TraceFilter | null {
  // Thread results and thread scores are not traces: no trace filter picks them.
  if (chart.metric.startsWith('thread_')) return null;
  if (chart.metric === 'evaluation_pass_rate') return { ...(filters ?? {}), evaluation: { evaluator: s.name } };
  if (PER_SCORE_CONFIG_METRICS.includes(chart.metric)) {
    // A series per config (its id as the group), or per category of the chart's config.
    if (!chart.scoreConfigId) return s.group ? { ...(filters ?? {}), score: { configId: s.group } } : null;
    return { ...(filters ?? {}), score: { configId: chart.scoreConfigId, ...(s.group && s.group !== chart.scoreConfigId ? { value: s.group } : {}) } };
  }
  if (!chart.groupBy) return filters ?? {};
  if (s.other || s.group === null) return null;
  const key = ({ model: 'model', label: 'labels', user: 'user_id', topic: 'topic' } as const)[chart.groupBy];
  return { ...(filters ?? {}), [key]: [s.group] };
}
