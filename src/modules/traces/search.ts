import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { badRequest } from '../../platform/errors.ts';
import * as store from './store.ts';
import { insertedSince, insertedUpTo, searchConditions as filterConditions } from './filter-store.ts';
import { traceView } from './presenters.ts';
import type { ListFacts, TraceContext } from './context.ts';
import type { ScoreMeansRelation } from './relations.ts';
import type { Executor } from '../../db/index.ts';
import type { AnnotationCounts, EvaluationChip, NewTracesRequest, SearchRequest, TraceScoreSummary, TraceSearch } from './schemas.ts';

// The trace search (keyset pages under a snapshot), the new-traces poll, and their conditions.

export async function search(ctx: TraceContext, projectId: string, req: SearchRequest) {
  const sortBy = SORT_COLUMNS[req.sortBy ?? 'started_at'];
  const direction = req.sortDirection ?? 'desc';
  const sortKey = req.sortByScore === undefined ? sortBy : `score:${req.sortByScore}`;
  const fingerprint = createHash('sha256').update(JSON.stringify([req.query, req.startDate, req.endDate, req.filters, sortKey, direction])).digest('base64url').slice(0, 16);
  let cursor: ScrollCursor | null = null;
  if (req.scrollId) {
    cursor = decodeScroll(req.scrollId);
    if (cursor.f !== fingerprint) throw badRequest('invalid_scroll_id', 'scrollId belongs to a different query, filters or sort', 'scrollId');
  }
  const order: store.SearchQuery['order'] =
    req.sortByScore === undefined ? { column: sortBy } : { values: await scoreSort(ctx, projectId, req.sortByScore) };
  // The first page fixes a snapshot: traces first seen after it never shift later pages.
  const snapshot = cursor?.s ?? ctx.clock.now().getTime();
  const where: SQL[] = [insertedUpTo(snapshot), ...searchConditions(ctx, projectId, { ...req, query: await searchText(ctx, projectId, req.query) })];
  const pageSize = req.pageSize ?? 25;
  // A replica when one is past the client's writes (DATABASE_READ_URL), else the primary.
  const reads = await ctx.db.reads.executor();
  // Counted once, on the first page (the snapshot keeps it true for the pages after), on a
  // connection of its own while the page and its facts are read: a text query's count costs
  // about what its page does, and the answer waits for the slower of the two, not their sum.
  const counting = cursor ? Promise.resolve(cursor.n) : store.countTraces(reads, projectId, where);
  const paging = store
    .searchTraces(reads, {
      projectId,
      where,
      order,
      direction,
      after: cursor ? { value: cursor.v, traceId: cursor.t } : null,
      limit: pageSize,
      newestFirst: { from: snapshot, text: !!req.query?.trim() },
    })
    .then(async ({ rows }) => ({ rows, traces: await listRows(ctx, reads, projectId, rows) }));
  const [counted, { rows, traces }] = await Promise.all([counting, paging]);
  const last = rows[rows.length - 1];
  const scrollId =
    rows.length === pageSize && last
      ? encodeScroll({ v: 'column' in order ? sortValue(last, order.column) : last.sort_value, t: last.trace_id, s: snapshot, f: fingerprint, n: counted })
      : null;
  const capped = counted > store.MAX_COUNTED_HITS;
  return {
    traces,
    pagination: { totalHits: capped ? store.MAX_COUNTED_HITS : counted, totalHitsRelation: capped ? ('gte' as const) : ('eq' as const), scrollId },
  };
}

/** The query as the project stores values (privacy's hash mode: a typed e-mail address finds its token). */
async function searchText(ctx: TraceContext, projectId: string, query: string | undefined): Promise<string | undefined> {
  const privacy = ctx.extensions.find((e) => e.searchText !== undefined);
  return query?.trim() && privacy?.searchText ? privacy.searchText(projectId, query) : query;
}

/** The rows (trace_id, value) `sortByScore` orders by, from the module that owns scores. */
async function scoreSort(ctx: TraceContext, projectId: string, configId: string): Promise<ScoreMeansRelation> {
  for (const e of ctx.extensions) if (e.scoreSort) return e.scoreSort(projectId, configId, 'sortByScore');
  throw badRequest('validation_error', 'sortByScore: scores are not available on this server', 'sortByScore');
}

/**
 * Traces first stored at or after `since` that match the search, newest first: the list
 * polls this to show new traces live. It reads the database only, so it works the same
 * with any number of processes on one PostgreSQL.
 */
export async function newTraces(ctx: TraceContext, projectId: string, req: NewTracesRequest) {
  const where = [insertedSince(req.since), ...searchConditions(ctx, projectId, req)];
  const now = ctx.clock.now().getTime();
  const reads = await ctx.db.reads.executor();
  const [rows, count] = await Promise.all([
    store.recentlyInserted(reads, projectId, where, req.pageSize ?? 50),
    store.countTraces(reads, projectId, where),
  ]);
  return { traces: await listRows(ctx, reads, projectId, rows), count: Math.min(count, store.MAX_COUNTED_HITS), now };
}

/** Summaries as the list shows them: with other modules' facts (evaluations, annotations) merged in. */
async function listRows(ctx: TraceContext, reads: Executor, projectId: string, rows: store.TraceRow[]) {
  const views = rows.map(traceView);
  if (!views.length) return views;
  const ids = views.map((v) => v.trace_id);
  const facts: ListFacts[] = await Promise.all(ctx.extensions.map(async (e) => (await e.listFacts?.(reads, projectId, ids)) ?? {}));
  return views.map((v) => {
    const extra: { evaluations: EvaluationChip[]; annotations: AnnotationCounts; scores: TraceScoreSummary[] } = {
      evaluations: [],
      annotations: { thumbs_up: 0, thumbs_down: 0 },
      scores: [],
    };
    for (const f of facts) {
      extra.evaluations.push(...(f.evaluations?.get(v.trace_id) ?? []));
      if (f.annotations?.has(v.trace_id)) extra.annotations = f.annotations.get(v.trace_id)!;
      extra.scores.push(...(f.scores?.get(v.trace_id) ?? []));
    }
    return { ...v, ...extra };
  });
}

/**
 * The trace search's query, dates and filters as SQL conditions on rows of `traces`
 * (filter-store.ts), with the conditions of the keys other modules own.
 */
export function searchConditions(ctx: TraceContext, projectId: string, req: TraceSearch): SQL[] {
  return filterConditions(req, ctx.extensions.flatMap((e) => (e.filterConditions ? [e.filterConditions] : [])));
}

const SORT_COLUMNS = {
  started_at: 'started_at',
  'timestamps.started_at': 'started_at',
  cost: 'total_cost',
  'metrics.total_cost': 'total_cost',
  latency: 'total_time_ms',
  'metrics.total_time_ms': 'total_time_ms',
} as const;

interface ScrollCursor {
  /** sort value and trace id of the last trace served */
  v: number | null;
  t: string;
  /** snapshot: traces first seen after it are left out */
  s: number;
  /** fingerprint of query, filters and sort */
  f: string;
  /** hits counted on the first page */
  n: number;
}

function encodeScroll(c: ScrollCursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeScroll(id: string): ScrollCursor {
  try {
    const c = JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as ScrollCursor;
    if (typeof c.t === 'string' && typeof c.s === 'number' && typeof c.f === 'string' && typeof c.n === 'number' && (c.v === null || typeof c.v === 'number')) return c;
  } catch {
    /* falls through */
  }
  throw badRequest('invalid_scroll_id', 'scrollId is not one this server issued', 'scrollId');
}

/** Ids of the traces matching a search, newest first, at most `limit` (review queues, dataset imports, monitor backfills). */
export async function matchingTraceIds(ctx: TraceContext, projectId: string, trace: TraceSearch, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let scrollId: string | undefined;
  while (ids.length < limit) {
    const page = await search(ctx, projectId, { ...trace, pageSize: Math.min(1000, limit - ids.length), scrollId });
    ids.push(...page.traces.map((t) => t.trace_id));
    scrollId = page.pagination.scrollId ?? undefined;
    if (!scrollId) break;
  }
  return ids;
}

function sortValue(row: store.TraceRow, column: store.SortColumn): number | null {
  return column === 'started_at' ? row.started_at : column === 'total_cost' ? row.total_cost : row.total_time_ms;
}
