/**
 * What other modules read of the traces table in aggregate (analytics' charts, rules and
 * reports; the threads list): the statements of aggregates-store.ts and thread-store.ts,
 * asked with the trace search itself (typed, the one filter schema) and buckets as data. The
 * search becomes conditions here, with the conditions of the filter keys other modules own
 * (their TraceExtension), so no module hands another SQL text.
 */
import type { SQL } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import * as aggregates from './aggregates-store.ts';
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

/** The statements bound to the module's context: each turns the search into conditions and the buckets into SQL. */
export function traceAggregates(ctx: TraceContext): TraceAggregates {
  const ask =
    <Q extends { projectId: string; where: SQL[] }, R>(statement: Statement<Q, R>): Statement<Asked<Q>, R> =>
    (db, { search, ...rest }) => {
      const bucket = 'bucket' in rest ? { bucket: aggregates.traceBucket(rest.bucket as aggregates.TraceBuckets) } : {};
      return statement(db, { ...rest, ...bucket, where: searchConditions(ctx, rest.projectId, search) } as unknown as Q);
    };
  return {
    aggregateTraces: ask(aggregates.aggregateTraces),
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
