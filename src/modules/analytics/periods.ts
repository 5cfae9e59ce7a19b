import type { GroupBy, TraceBuckets, TraceSearch, TraceValueColumn } from '../traces/index.ts';
import { foreignGroups, roundUsd, type AnalyticsContext, type AnalyticsScope, type GroupSums, type PeriodQuery, type WindowsQuery } from './context.ts';

/*
 * What alerts, reports and topics read of a project's traces: sums, per-trace values,
 * evaluation results and review scores over one period or over its windows.
 */

/** Sums per group over one period, every group (no "other"): what a report's period counts. */
export async function periodSums(ctx: AnalyticsContext, { projectId }: AnalyticsScope, q: PeriodQuery): Promise<GroupSums[]> {
  return (await sums(ctx, projectId, q, { period: q.startDate })).map(({ window: _, ...s }) => s);
}

/** periodSums per window: one statement for every window of the period (a rule's windows). */
export async function windowSums(ctx: AnalyticsContext, { projectId }: AnalyticsScope, q: WindowsQuery): Promise<(GroupSums & { window: number })[]> {
  return sums(ctx, projectId, q, { origin: q.startDate, widthMs: q.windowMs });
}

async function sums(ctx: AnalyticsContext, projectId: string, q: PeriodQuery, bucket: TraceBuckets): Promise<(GroupSums & { window: number })[]> {
  const result = await ctx.ports.traces.groupSums(await ctx.db.reads.executor(), {
    projectId,
    search: periodSearch(q),
    bucket,
    groupBy: q.groupBy,
    foreignGroups: foreignGroups(ctx, projectId),
    thumbs: ctx.ports.thumbs(projectId),
  });
  const thumbs = new Map(result.thumbs.map((t) => [`${Number(t.b)}\u0000${t.g ?? '\u0001'}`, t]));
  return result.metrics.map((m) => {
    const t = thumbs.get(`${Number(m.b)}\u0000${m.g ?? '\u0001'}`);
    return {
      window: Number(m.b),
      group: m.g,
      traces: Number(m.traces),
      errors: Number(m.errors),
      cost: roundUsd(Number(m.cost)),
      tokens: Number(m.prompt) + Number(m.completion),
      thumbs_up: Number(t?.up ?? 0),
      thumbs_down: Number(t?.down ?? 0),
    };
  });
}

/** One value per trace (latency, first-token time, cost, tokens) per window and group: for percentiles and rank tests. */
export async function windowValues(ctx: AnalyticsContext, { projectId }: AnalyticsScope, q: WindowsQuery & { column: TraceValueColumn }): Promise<{ window: number; g: string | null; values: number[] }[]> {
  return ctx.ports.traces.windowTraceValues(await ctx.db.reads.executor(), { projectId, search: periodSearch(q), groupBy: q.groupBy, foreignGroups: foreignGroups(ctx, projectId), column: q.column, bucket: { origin: q.startDate, widthMs: q.windowMs } }).then((found) =>
    found.map((r) => ({ window: r.b, g: r.g, values: r.v })),
  );
}

/** Evaluation results counted per window and group (a trace segment or the evaluation's name), with their scores. */
export async function windowEvaluations(
  ctx: AnalyticsContext,
  { projectId }: AnalyticsScope,
  q: Omit<WindowsQuery, 'groupBy'> & { groupBy: GroupBy | 'evaluator'; evaluator: string | null },
): Promise<{ window: number; g: string | null; ran: number; errors: number; verdicts: number; passed: number; scores: number[] }[]> {
  return ctx.ports.traces.windowEvaluationValues(await ctx.db.reads.executor(), {
    projectId,
    search: periodSearch(q),
    groupBy: q.groupBy,
    foreignGroups: foreignGroups(ctx, projectId),
    results: ctx.ports.evaluationResults(projectId),
    evaluator: q.evaluator,
    bucket: { origin: q.startDate, widthMs: q.windowMs },
  }).then((found) => found.map(({ b, ...r }) => ({ window: b, ...r })));
}

/** One review score config per window: scores, their sum, those in `category`, and each scored trace's mean. */
export async function windowScores(
  ctx: AnalyticsContext,
  { projectId }: AnalyticsScope,
  q: Omit<WindowsQuery, 'groupBy'> & { configId: string; category: string | null },
): Promise<{ window: number; kind: string; count: number; total: number; inCategory: number; traceMeans: number[] }[]> {
  return ctx.ports.traces.windowScoreValues(await ctx.db.reads.executor(), {
    projectId,
    search: periodSearch(q),
    scores: ctx.ports.scores(projectId),
    configId: q.configId,
    category: q.category,
    bucket: { origin: q.startDate, widthMs: q.windowMs },
  }).then((found) => found.map(({ b, ...r }) => ({ window: b, ...r })));
}

/** One value per trace (latency, first-token time, cost, tokens) and its group, over a period: for percentiles and rank tests. */
export async function periodValues(ctx: AnalyticsContext, { projectId }: AnalyticsScope, q: PeriodQuery & { column: TraceValueColumn; limit: number }): Promise<{ g: string | null; v: number }[]> {
  return ctx.ports.traces.traceValues(await ctx.db.reads.executor(), { projectId, search: periodSearch(q), groupBy: q.groupBy, foreignGroups: foreignGroups(ctx, projectId), column: q.column, limit: q.limit });
}

/** The evaluation results (status, verdict, score) of a period's traces, grouped by a trace segment or by evaluation name. */
export async function periodEvaluations(
  ctx: AnalyticsContext,
  { projectId }: AnalyticsScope,
  q: Omit<PeriodQuery, 'groupBy'> & { groupBy: GroupBy | 'evaluator'; evaluator: string | null; limit: number },
): Promise<{ g: string | null; name: string; status: string; passed: boolean | null; score: number | null }[]> {
  return ctx.ports.traces.evaluationValues(await ctx.db.reads.executor(), {
    projectId,
    search: periodSearch(q),
    groupBy: q.groupBy,
    foreignGroups: foreignGroups(ctx, projectId),
    results: ctx.ports.evaluationResults(projectId),
    evaluator: q.evaluator,
    limit: q.limit,
  });
}

/** The traces of a period: its dates (inclusive) and the trace filter. */
function periodSearch(q: Pick<PeriodQuery, 'filters' | 'startDate' | 'endDate'>): TraceSearch {
  return { filters: q.filters, startDate: q.startDate, endDate: q.endDate };
}
