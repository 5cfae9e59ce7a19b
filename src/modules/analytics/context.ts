import type { Database, Executor } from '../../db/index.ts';
import type { ProjectScope } from '../../platform/http/route-group.ts';
import type { BucketSpec } from '../../platform/time-buckets.ts';
import type { EvaluationResultsRelation, ForeignGroups, GroupBy, ScoreBucketRow, ScoresRelation, ThreadIdsRelation, ThumbsRelation, TopicsRelation, TraceAggregates, VerdictsRelation } from '../traces/index.ts';
import type { TimeseriesRequest } from './schemas.ts';

/**
 * What analytics reads of other modules (wired by app.ts). Other modules' rows come as typed
 * relations built in their owners' stores; the traces module joins them by their columns.
 */
export interface AnalyticsPorts {
  /** Sums and values of the traces a search picks, asked with the search itself (the traces module's; its one filter compiler). */
  traces: TraceAggregates;
  /** A project's thumbs (the annotations module's). */
  thumbs(projectId: string): ThumbsRelation;
  /** A project's evaluations that gave a verdict (the evaluators module's). */
  verdicts(projectId: string): VerdictsRelation;
  /** A project's review scores of traces (the annotations module's). */
  scores(projectId: string): ScoresRelation;
  /** A project's evaluation results that ran (the evaluators module's). */
  evaluationResults(projectId: string): EvaluationResultsRelation;
  /** A project's traces with their topic (grouping by topic); absent: no topics module. */
  topics?(projectId: string): TopicsRelation;
  /** Thread monitors' results per name and bucket of when they ran, of the threads `threads` lists when given (the threads module's). */
  threadResults(db: Executor, projectId: string, q: ThreadSeriesQuery): Promise<{ name: string; b: number; evaluated: number; passed: number; failed: number; errors: number; scored: number; mean: number | null }[]>;
  /** People's thread scores per config and bucket of when given, categories apart (the annotations module's). */
  threadScores(db: Executor, projectId: string, q: ThreadSeriesQuery): Promise<ScoreBucketRow[]>;
}

/** What the analytics use cases work with (built by module.ts). */
export interface AnalyticsContext {
  db: Database;
  ports: AnalyticsPorts;
}

/** Whose data: analytics read one project's traces. */
export type AnalyticsScope = Pick<ProjectScope, 'projectId'>;

/** A range of thread series: when results and scores were stored, in these buckets; only the threads a trace search picks, or all. */
export interface ThreadSeriesQuery {
  start: number;
  end: number;
  buckets: BucketSpec;
  threads: ThreadIdsRelation | null;
}

/** One period (alerts' windows, reports' days) of a project's traces: dates inclusive, the trace filter, and a split. */
export interface PeriodQuery {
  startDate: number;
  endDate: number;
  filters?: TimeseriesRequest['filters'];
  groupBy: GroupBy;
}

/**
 * Windows of a period (alerts' windows, read many at once): `windowMs` long from `startDate`,
 * each row saying its window's start (`window`); the dates inclusive, as a period's.
 */
export interface WindowsQuery extends PeriodQuery {
  windowMs: number;
}

/** A group's sums over a period: every group, uncapped (alerts decide each one). */
export interface GroupSums {
  group: string | null;
  traces: number;
  errors: number;
  cost: number;
  tokens: number;
  thumbs_up: number;
  thumbs_down: number;
}

/** Groups whose values other modules own (topics), for the project asked about. */
export function foreignGroups(ctx: AnalyticsContext, projectId: string): ForeignGroups {
  return ctx.ports.topics ? { topic: ctx.ports.topics(projectId) } : {};
}

/** Sums of float costs drift in the last digits; the summary keeps 10 decimals, so do the sums. */
export const roundUsd = (v: number) => Math.round(v * 1e10) / 1e10;
