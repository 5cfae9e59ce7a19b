/**
 * Threads (the traces sharing a thread id) read from the traces table, which is this module's:
 * the threads module reaches them through these functions (index.ts), never the table.
 */
import { and, eq, isNotNull, sql, type SQL, type SQLWrapper, type Subquery } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { traces as tracesTable } from '../../db/schema/traces.ts';
import { containsPattern, rows, type Executor } from '../../db/index.ts';

export type ThreadSort = 'thread_id' | 'turns' | 'cost' | 'duration' | 'errors' | 'users' | 'first_seen' | 'last_seen';

export interface ThreadsQuery {
  projectId: string;
  /** The trace search's conditions on `traces` (dates included): a thread is listed when any of its traces matches. */
  where: SQL[];
  /** Part of the thread id (case-insensitive). */
  contains: string | null;
  sortBy: ThreadSort;
  /** Values to sort by instead of `sortBy` (a review score, an evaluation's result); threads without one last either way. */
  sortValues: ThreadValuesRelation | null;
  /** Each picks threads (a review score filter, an evaluation filter): only threads every one holds are listed (none: all). */
  keep: readonly ThreadsPickedRelation[];
  direction: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/**
 * Threads another module's data picks (people's review scores, thread evaluations): a typed
 * relation (threadId) the owner of that data builds in its store, so no module hands this one
 * SQL text or names its table.
 */
export type ThreadsPickedRelation = Subquery & { threadId: SQLWrapper };
/** A value per thread to sort threads by (threadId, value), built by the store of the module that owns the values. */
export type ThreadValuesRelation = Subquery & { threadId: SQLWrapper; value: SQLWrapper };

export interface ThreadRow {
  thread_id: string;
  turns: number;
  first_seen: number;
  last_seen: number;
  /** Start of the first turn to the end of the last, ms. */
  duration_ms: number;
  cost: number;
  prompt_tokens: number;
  completion_tokens: number;
  errors: number;
  /** Distinct user ids (at most 5 listed) and how many there are. */
  users: string[];
  user_count: number;
  /** Threads matching, on every row (a window count). */
  total: number;
}

const THREAD_ORDER: Record<ThreadSort, string> = {
  thread_id: 't.thread_id',
  turns: 't.turns',
  cost: 't.cost',
  duration: 't.duration_ms',
  errors: 't.errors',
  users: 't.user_count',
  first_seen: 't.first_seen',
  last_seen: 't.last_seen',
};

/**
 * A project's threads: those with a trace the search picks, each summed over all its traces
 * (turns, cost, tokens, errors, users, first and last turn), sorted and paged in the database.
 */
export async function aggregateThreads(db: Executor, q: ThreadsQuery): Promise<ThreadRow[]> {
  const conditions = [sql`traces.project_id = ${q.projectId}`, sql`traces.thread_id IS NOT NULL`, ...q.where];
  if (q.contains) conditions.push(sql`traces.thread_id ILIKE ${containsPattern(q.contains)}`);
  const dir = sql.raw(q.direction === 'asc' ? 'ASC' : 'DESC');
  for (const picked of q.keep) conditions.push(sql`traces.thread_id IN (SELECT ${picked.threadId} FROM ${picked})`);
  const sv = q.sortValues;
  const order = sv ? sql`${sv.value} ${dir} NULLS LAST, t.thread_id ${dir}` : sql`${sql.raw(THREAD_ORDER[q.sortBy])} ${dir} NULLS LAST, t.thread_id ${dir}`;
  return rows<ThreadRow>(
    db,
    sql`WITH m AS (
          SELECT DISTINCT traces.thread_id FROM traces WHERE ${sql.join(conditions, sql` AND `)}
        ), t AS (
          SELECT tr.thread_id, count(*)::int AS turns, min(tr.started_at)::float8 AS first_seen, max(tr.started_at)::float8 AS last_seen,
            (max(tr.finished_at) - min(tr.started_at))::float8 AS duration_ms, coalesce(sum(tr.total_cost), 0)::float8 AS cost,
            coalesce(sum(tr.prompt_tokens), 0)::float8 AS prompt_tokens, coalesce(sum(tr.completion_tokens), 0)::float8 AS completion_tokens,
            count(*) FILTER (WHERE tr.has_error)::int AS errors,
            (array_agg(DISTINCT tr.user_id) FILTER (WHERE tr.user_id IS NOT NULL))[1:5] AS users,
            count(DISTINCT tr.user_id)::int AS user_count
          FROM traces tr JOIN m ON m.thread_id = tr.thread_id
          WHERE tr.project_id = ${q.projectId}
          GROUP BY tr.thread_id
        )
        SELECT t.*, (count(*) OVER ())::int AS total FROM t ${sv ? sql`LEFT JOIN ${sv} ON ${sv.threadId} = t.thread_id` : sql``}
        ORDER BY ${order}
        LIMIT ${q.limit} OFFSET ${q.offset}`,
  );
}

/** The threads with a trace a search picks (thread ids, each once): a typed relation the owners of thread data join. */
export type ThreadIdsRelation = Subquery & { threadId: SQLWrapper & { readonly _: { readonly data: string } } };

/** The threads with a trace the conditions on `traces` pick: what a thread series keeps under a trace filter. */
export function pickedThreads(projectId: string, where: SQL[]): ThreadIdsRelation {
  return new QueryBuilder()
    .selectDistinct({ threadId: tracesTable.threadId })
    .from(tracesTable)
    .where(and(eq(tracesTable.projectId, projectId), isNotNull(tracesTable.threadId), ...where))
    .as('picked_threads');
}

export interface ThreadTurnRow {
  trace_id: string;
  started_at: number;
  /** The newest change of the turn's trace (spans arriving late change it). */
  updated_at: number;
}

/** A thread's turns (its traces), oldest first, at most `limit` (the first ones). */
export async function threadTurns(db: Executor, projectId: string, threadId: string, limit: number): Promise<ThreadTurnRow[]> {
  const found = await rows<ThreadTurnRow>(
    db,
    sql`SELECT trace_id, started_at::float8 AS started_at, updated_at::float8 AS updated_at FROM traces
        WHERE project_id = ${projectId} AND thread_id = ${threadId} ORDER BY started_at, trace_id LIMIT ${limit}`,
  );
  return found.map((r) => ({ trace_id: r.trace_id, started_at: Number(r.started_at), updated_at: Number(r.updated_at) }));
}
