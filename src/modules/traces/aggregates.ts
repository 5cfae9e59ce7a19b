/**
 * What other modules read of the traces table in aggregate (analytics' charts, rules and
 * reports; the threads list): the statements of aggregates-store.ts and thread-store.ts,
 * asked with the trace search itself (typed, the one filter schema) and buckets as data. The
 * search becomes conditions here, with the conditions of the filter keys other modules own
 * (their TraceExtension), so no module hands another SQL text.
 */
import type { SQL } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import { toMillis } from '../../platform/time-buckets.ts';
import * as aggregates from './aggregates-store.ts';
import { HOUR_MS } from './rollup-store.ts';
import type { TraceContext } from './context.ts';
import type { TraceSearch } from './schemas.ts';
import { searchConditions } from './search.ts';
import { aggregateThreads, pickedThreads, type ThreadIdsRelation } from './thread-store.ts';

/**
 * A statement's query as another module asks it: which traces by the search (query, dates,
 * filters) instead of conditions, and their buckets (if any) as data, not SQL.
 */
export type Asked<Q> = Omit<Q, 'where' | 'bucket'> & { search: TraceSearch } & ('bucket' extends keyof Q ? { bucket: aggregates.TraceBuckets } : unknown);

type Statement<Q, R> = (db: Executor, q: Q) => Promise<R>;
type AskedStatement<S> = S extends Statement<infer Q, infer R> ? Statement<Asked<Q>, R> : never;

export interface TraceAggregates {
  aggregateTraces: AskedStatement<typeof aggregates.aggregateTraces>;
  groupSums: AskedStatement<typeof aggregates.groupSums>;
  traceValues: AskedStatement<typeof aggregates.traceValues>;
  evaluationValues: AskedStatement<typeof aggregates.evaluationValues>;
  aggregateUsers: AskedStatement<typeof aggregates.aggregateUsers>;
  windowTraceValues: AskedStatement<typeof aggregates.windowTraceValues>;
  windowEvaluationValues: AskedStatement<typeof aggregates.windowEvaluationValues>;
  windowScoreValues: AskedStatement<typeof aggregates.windowScoreValues>;
  aggregateThreads: AskedStatement<typeof aggregateThreads>;
  /** The threads with a trace the search picks, as a typed relation (thread series of other modules keep only these). */
  pickedThreads(projectId: string, search: TraceSearch): ThreadIdsRelation;
}

/**
 * The whole hours of a search the hourly rollups answer (buckets of whole hours aligned to
 * hours: any whole-hour UTC offset), or undefined: a text query or any filter (the rollups
 * carry neither), groups other than models, buckets finer than an hour or one period.
 */
function rollupRange(search: TraceSearch, bucket: aggregates.TraceBuckets, groupBy: aggregates.GroupBy): aggregates.RollupRange | undefined {
  if (search.query?.trim() || Object.keys(search.filters ?? {}).length) return undefined;
  if (groupBy !== null && groupBy !== 'model') return undefined;
  if ('period' in bucket || bucket.widthMs % HOUR_MS !== 0 || ((bucket.origin % HOUR_MS) + HOUR_MS) % HOUR_MS !== 0) return undefined;
  // An hour's rollup holds a row per latency bucket met: about as many rows as traces when an hour
  // holds a few hundred, so hourly charts read the traces (1,323 ms live against 1,898 from rollups
  // over 30 days at 500k spans); a day's bucket sums 24 hours' rows, which pays (994 against 448 ms).
  if (bucket.widthMs < 24 * HOUR_MS) return undefined;
  if (search.startDate === undefined || search.endDate === undefined) return undefined;
  const start = toMillis(search.startDate, 'startDate');
  const end = toMillis(search.endDate, 'endDate');
  const from = Math.ceil(start / HOUR_MS) * HOUR_MS;
  const to = Math.floor((end + 1) / HOUR_MS) * HOUR_MS;
  return to > from ? { from, to, start, end, spec: bucket } : undefined;
}

/** The statements bound to the module's context: each turns the search into conditions and the buckets into SQL. */
export function traceAggregates(ctx: TraceContext): TraceAggregates {
  const ask =
    <Q extends { projectId: string; where: SQL[] }, R>(statement: Statement<Q, R>): Statement<Asked<Q>, R> =>
    (db, { search, ...rest }) => {
      const bucket = 'bucket' in rest ? { bucket: aggregates.traceBucket(rest.bucket as aggregates.TraceBuckets) } : {};
      return statement(db, { ...rest, ...bucket, where: searchConditions(ctx, rest.projectId, search) } as unknown as Q);
    };
  return {
    // The charts' statement reads the hourly rollups when the search is dates alone and the buckets whole hours.
    aggregateTraces: (db, { search, bucket, ...rest }) =>
      aggregates.aggregateTraces(db, {
        ...rest,
        bucket: aggregates.traceBucket(bucket),
        where: searchConditions(ctx, rest.projectId, search),
        rollup: rollupRange(search, bucket, rest.groupBy),
      }),
    groupSums: ask(aggregates.groupSums),
    traceValues: ask(aggregates.traceValues),
    evaluationValues: ask(aggregates.evaluationValues),
    aggregateUsers: ask(aggregates.aggregateUsers),
    windowTraceValues: ask(aggregates.windowTraceValues),
    windowEvaluationValues: ask(aggregates.windowEvaluationValues),
    windowScoreValues: ask(aggregates.windowScoreValues),
    aggregateThreads: ask(aggregateThreads),
    pickedThreads: (projectId, search) => pickedThreads(projectId, searchConditions(ctx, projectId, search)),
  };
}
