import { z } from 'zod';
import { dateInput, epochMs } from '../../platform/date-input.ts';
import { utcOffsetMinutes } from '../../platform/utc-offset.ts';
// schemas.ts to schemas.ts: the web app imports these without pulling in any service code.
import { timeseriesRequestSchema } from '../analytics/schemas.ts';
import { searchRequestSchema } from '../traces/schemas.ts';

/** A dashboard holds at most this many charts: a page people read, not a data dump. */
export const MAX_CHARTS = 50;
/** The grid's width in columns; charts sit on whole cells. */
export const GRID_COLUMNS = 12;
/** How far down the grid goes, in rows, and how tall one chart can be. */
export const MAX_ROW = 500;
export const MAX_CHART_HEIGHT = 24;
/** The widest range a chart reads: the analytics API's bound. */
export const MAX_RANGE_DAYS = 400;

/**
 * The series a chart can show: each is read from one answer of POST /api/analytics/timeseries
 * (dashboards/metrics.ts says how). Sums sum over a range, rates divide sums, percentiles do neither.
 */
export const METRICS = [
  'traces',
  'spans',
  'errors',
  'error_rate',
  'cost',
  'tokens',
  'prompt_tokens',
  'completion_tokens',
  'latency_p50',
  'latency_p95',
  'latency_p99',
  'thumbs_up',
  'thumbs_down',
  'evaluation_pass_rate',
  'score_mean',
  'score_count',
  'thread_pass_rate',
  'thread_score_mean',
  'thread_review_score_mean',
] as const;
export type MetricName = (typeof METRICS)[number];
/** Percentiles cannot be summed or averaged over a range: no single number for them. */
export const PERCENTILE_METRICS: readonly MetricName[] = ['latency_p50', 'latency_p95', 'latency_p99'];
/** Metrics read per evaluator or per score config: the analytics API does not split them by model, label or user. */
export const UNGROUPED_METRICS: readonly MetricName[] = ['evaluation_pass_rate', 'score_mean', 'score_count', 'thread_pass_rate', 'thread_score_mean', 'thread_review_score_mean'];
/** Metrics whose series are per evaluation (a trace evaluation, or a thread monitor): `evaluator` picks one. */
export const PER_EVALUATION_METRICS: readonly MetricName[] = ['evaluation_pass_rate', 'thread_pass_rate', 'thread_score_mean'];
/** Metrics whose series are per score config (of traces or of threads): `scoreConfigId` picks one. */
export const PER_SCORE_CONFIG_METRICS: readonly MetricName[] = ['score_mean', 'score_count', 'thread_review_score_mean'];

export const DISPLAYS = ['line', 'bar', 'number', 'table'] as const;
export const RELATIVE_RANGES = ['15m', '1h', '24h', '7d', '30d', '90d'] as const;
export const RELATIVE_RANGE_MS: Record<(typeof RELATIVE_RANGES)[number], number> = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
  '90d': 90 * 86_400_000,
};


/** Either the last so long (counted back from when the dashboard is read) or fixed dates. */
export const timeRangeSchema = z
  .strictObject({
    last: z.enum(RELATIVE_RANGES).optional().describe('The last 15m, 1h, 24h, 7d, 30d or 90d before the dashboard is read'),
    from: dateInput.optional().describe('Fixed range: traces started at or after (epoch ms or ISO 8601)'),
    to: dateInput.optional().describe(`Fixed range: traces started at or before; at most ${MAX_RANGE_DAYS} days after from`),
  })
  .superRefine((r, ctx) => {
    if (r.last !== undefined) {
      if (r.from !== undefined || r.to !== undefined) ctx.addIssue({ code: 'custom', path: ['last'], message: 'either last or from and to, not both' });
      return;
    }
    if (r.from === undefined) return void ctx.addIssue({ code: 'custom', path: ['from'], message: 'required (or last)' });
    if (r.to === undefined) return void ctx.addIssue({ code: 'custom', path: ['to'], message: 'required with from' });
    const from = epochMs(r.from);
    const to = epochMs(r.to);
    if (to < from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'before from' });
    else if (to - from > MAX_RANGE_DAYS * 86_400_000) ctx.addIssue({ code: 'custom', path: ['to'], message: `at most ${MAX_RANGE_DAYS} days after from` });
  })
  .meta({ id: 'DashboardTimeRange' });
export type TimeRange = z.output<typeof timeRangeSchema>;

const idPattern = /^[A-Za-z0-9_-]{1,64}$/;

export const layoutSchema = z.strictObject({
  x: z.number().int().min(0).max(GRID_COLUMNS - 1).describe(`Column of the left edge (0..${GRID_COLUMNS - 1})`),
  y: z.number().int().min(0).max(MAX_ROW).describe('Row of the top edge (0 is the top)'),
  w: z.number().int().min(1).max(GRID_COLUMNS).describe(`Width in columns; x + w <= ${GRID_COLUMNS}`),
  h: z.number().int().min(1).max(MAX_CHART_HEIGHT).describe('Height in rows'),
});
export type Layout = z.output<typeof layoutSchema>;

export const chartSchema = z
  .strictObject({
    id: z.string().regex(idPattern, 'letters, digits, - and _ (1..64)').describe('Unique in the dashboard; links and the MCP tool name a chart by it'),
    title: z.string().trim().min(1).max(200),
    metric: z.enum(METRICS).describe('The series shown (see the dashboards guide for what each one is)'),
    display: z.enum(DISPLAYS).default('line').describe('line or bar: over time; number: the whole range in one figure; table: the values per interval'),
    groupBy: timeseriesRequestSchema.shape.groupBy.describe('One series per model, label, user or topic (the 10 with most traces, the rest as "other")'),
    interval: timeseriesRequestSchema.shape.interval,
    evaluator: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("evaluation_pass_rate: only this evaluation (a monitor's name or the evaluator's); thread_pass_rate, thread_score_mean: only this thread monitor (its name); default: one series each"),
    scoreConfigId: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('score_mean, score_count, thread_review_score_mean: only this score config (GET /api/score-configs); score_count of a categorical config: one series per category. Default: one series per config'),
    timeRange: timeRangeSchema.optional().describe("This chart's own range instead of the dashboard's"),
    query: searchRequestSchema.shape.query.describe("This chart's own full-text query instead of the dashboard's"),
    filters: searchRequestSchema.shape.filters.describe("Filters on top of the dashboard's: a key set here replaces the dashboard's value of that key"),
    layout: layoutSchema,
  })
  .meta({ id: 'DashboardChart' });
export type Chart = z.output<typeof chartSchema>;

/** What makes a definition wrong beyond each field's own shape: places, ids, and combinations. */
function checkCharts(charts: Chart[], ctx: z.RefinementCtx) {
  const seen = new Map<string, number>();
  charts.forEach((c, i) => {
    const at = (...path: (string | number)[]) => ['charts', i, ...path];
    const first = seen.get(c.id);
    if (first !== undefined) ctx.addIssue({ code: 'custom', path: at('id'), message: `the same id as charts.${first}` });
    else seen.set(c.id, i);
    if (c.layout.x + c.layout.w > GRID_COLUMNS) ctx.addIssue({ code: 'custom', path: at('layout', 'w'), message: `x + w is ${c.layout.x + c.layout.w}, past the grid's ${GRID_COLUMNS} columns` });
    if (c.display === 'number' && PERCENTILE_METRICS.includes(c.metric)) ctx.addIssue({ code: 'custom', path: at('display'), message: `a percentile (${c.metric}) has no single number over a range: line, bar or table` });
    if (c.groupBy && UNGROUPED_METRICS.includes(c.metric)) ctx.addIssue({ code: 'custom', path: at('groupBy'), message: `${c.metric} is one series per ${PER_SCORE_CONFIG_METRICS.includes(c.metric) ? 'score config' : 'evaluation'}: null` });
    if (!PER_SCORE_CONFIG_METRICS.includes(c.metric) && c.scoreConfigId) ctx.addIssue({ code: 'custom', path: at('scoreConfigId'), message: `only for ${PER_SCORE_CONFIG_METRICS.join(', ')}` });
    if (!PER_EVALUATION_METRICS.includes(c.metric) && c.evaluator) ctx.addIssue({ code: 'custom', path: at('evaluator'), message: `only for ${PER_EVALUATION_METRICS.join(', ')}` });
  });
  // Overlaps: each pair once; the later chart is named (it is the one moved onto the other).
  for (let j = 1; j < charts.length; j++) {
    const b = charts[j].layout;
    for (let i = 0; i < j; i++) {
      const a = charts[i].layout;
      if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) {
        ctx.addIssue({ code: 'custom', path: ['charts', j, 'layout'], message: `overlaps chart ${charts[i].id} (charts.${i})` });
        break;
      }
    }
  }
}

export const dashboardDefinitionSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).optional(),
    timeRange: timeRangeSchema.default({ last: '24h' }).describe('The range every chart reads unless it has its own'),
    query: searchRequestSchema.shape.query.describe('Full-text query every chart inherits'),
    filters: searchRequestSchema.shape.filters.describe('The trace filters every chart inherits (the trace search filters, exactly)'),
    charts: z.array(chartSchema).max(MAX_CHARTS).describe(`At most ${MAX_CHARTS}; their layouts may not overlap`),
  })
  .superRefine((d, ctx) => checkCharts(d.charts, ctx))
  .meta({ id: 'DashboardDefinition' });
export type DashboardDefinition = z.output<typeof dashboardDefinitionSchema>;
export type DashboardDefinitionInput = z.input<typeof dashboardDefinitionSchema>;

export const dashboardIdParams = z.object({ id: z.string().regex(idPattern, 'letters, digits, - and _ (1..64)') });
export const chartParams = dashboardIdParams.extend({ chartId: z.string().regex(idPattern, 'letters, digits, - and _ (1..64)') });

export const dashboardSchema = z
  .object({
    id: z.string(),
    definition: z.object({
      name: z.string(),
      description: z.string().optional(),
      timeRange: z.object({ last: z.enum(RELATIVE_RANGES).optional(), from: dateInput.optional(), to: dateInput.optional() }),
      query: z.string().optional(),
      filters: searchRequestSchema.shape.filters,
      charts: z.array(chartSchema),
    }),
    builtIn: z.boolean().describe('The default dashboard as shipped, never saved in this project yet (PUT saves it)'),
    version: z.number().int().describe('Writes so far (0: built in)'),
    createdAt: z.number().int().nullable(),
    updatedAt: z.number().int().nullable(),
    updatedBy: z.string().nullable().describe('The user who saved it last; null: an API key or built in'),
  })
  .meta({ id: 'Dashboard' });
export type DashboardView = z.output<typeof dashboardSchema>;

export const dashboardListSchema = z
  .object({
    data: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string().nullable(),
        charts: z.number().int(),
        builtIn: z.boolean(),
        updatedAt: z.number().int().nullable(),
      }),
    ),
  })
  .meta({ id: 'DashboardList' });

export const chartDataBody = z
  .strictObject({
    timeRange: timeRangeSchema.optional().describe("The viewer's range for the whole dashboard instead of its stored one (a chart with its own range keeps it)"),
    query: searchRequestSchema.shape.query.describe("The viewer's full-text query instead of the dashboard's (a chart with its own keeps it)"),
    filters: searchRequestSchema.shape.filters.describe("The viewer's filters on top of the dashboard's: a key set here replaces the dashboard's value (a chart's own key still wins)"),
    groupBy: z
      .enum(['model', 'label', 'user', 'topic'])
      .nullable()
      .optional()
      .describe('The viewer\'s grouping for every chart that can be grouped instead of its own (null: none); charts of evaluations and scores keep theirs'),
    now: z.number().int().nonnegative().optional().describe('Epoch ms relative ranges count back from; default: now'),
    utcOffsetMinutes,
  })
  .meta({ id: 'ChartDataRequest' });

export const chartDataSchema = z
  .object({
    dashboardId: z.string(),
    chart: chartSchema,
    query: timeseriesRequestSchema.describe('The request to POST /api/analytics/timeseries this chart read, resolved: the same request gives the same numbers'),
    interval: z.enum(['minute', 'hour', 'day', 'week']),
    intervalMs: z.number().int(),
    startDate: z.number().int(),
    endDate: z.number().int(),
    value: z.number().nullable().describe('The whole range in one figure (sums summed, rates of the sums); null for percentiles and without data'),
    series: z.array(
      z.object({
        name: z.string().describe('The group, evaluation or score config; the metric when ungrouped'),
        group: z.string().nullable().describe('groupBy: the model, label, user or topic; score metrics: the score config id (or, per category, the category); null otherwise or for traces without one'),
        other: z.boolean(),
        total: z.number().nullable().describe("The series over the whole range (as value)"),
        filters: searchRequestSchema.shape.filters.nullable().describe('The trace filters of the traces behind the series (with startDate/endDate of a point: the traces list of that point); null when no filter can pick them (the "other" group, traces without a group)'),
        points: z.array(z.object({ start: z.number().int(), value: z.number().nullable() })),
      }),
    ),
  })
  .meta({ id: 'ChartData' });
export type ChartData = z.output<typeof chartDataSchema>;
