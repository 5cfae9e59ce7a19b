import type { z } from 'zod';
import { badRequest } from '../../../platform/errors.ts';
import { toMillis } from '../../../platform/time-buckets.ts';
import { aggregateThreads } from '../../traces/index.ts';
import type { ThreadsContext } from '../context.ts';
import { presentThread } from '../presenters.ts';
import type { threadsRequestSchema, ThreadsResponse } from '../schemas.ts';
import * as store from '../store.ts';

/**
 * A project's threads with their turns, duration, cost, errors, users and thread scores: the
 * threads with a trace the search picks (the trace search's query, filters and dates), and a
 * review score when asked, sorted (by a column or a review score) and paged.
 */
export async function listThreads(ctx: ThreadsContext, projectId: string, req: z.output<typeof threadsRequestSchema>): Promise<ThreadsResponse> {
  const startDate = req.startDate === undefined ? undefined : toMillis(req.startDate, 'startDate');
  const endDate = req.endDate === undefined ? undefined : toMillis(req.endDate, 'endDate');
  if (startDate !== undefined && endDate !== undefined && endDate < startDate) throw badRequest('invalid_range', 'body.endDate: before startDate', 'body.endDate');
  const keep = req.reviewScore ? await ctx.reviewScoreFilter(projectId, req.reviewScore, 'body.reviewScore') : null;
  const sortValues = req.sortByScore === undefined ? null : await ctx.reviewScoreSort(projectId, req.sortByScore, 'body.sortByScore');
  const query = (page: number, pageSize: number, sortBy = req.sortBy, byScore = sortValues) =>
    aggregateThreads(ctx.db.orm, {
      projectId,
      where: ctx.searchConditions(projectId, { query: req.query, filters: req.filters, startDate, endDate }),
      contains: req.search || null,
      sortBy,
      sortValues: byScore,
      keep,
      direction: req.sortDirection,
      limit: pageSize,
      offset: (page - 1) * pageSize,
    });
  const found = await query(req.page, req.pageSize);
  // A page past the end has no row to carry the count.
  const total = found[0]?.total ?? (req.page > 1 ? ((await query(1, 1, 'thread_id', null))[0]?.total ?? 0) : 0);
  const ids = found.map((t) => t.thread_id);
  const results = await store.latestByThread(ctx.db.orm, projectId, ids);
  const reviewed = await ctx.reviewScores(projectId, ids);
  return {
    threads: found.map((t) =>
      presentThread(
        t,
        results.filter((r) => r.thread_id === t.thread_id),
        reviewed.get(t.thread_id) ?? [],
      ),
    ),
    pagination: { page: req.page, pageSize: req.pageSize, total: Number(total) },
  };
}
