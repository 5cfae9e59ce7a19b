import type { z } from 'zod';
import { badRequest } from '../../../platform/errors.ts';
import { toMillis } from '../../../platform/time-buckets.ts';
import type { ThreadsContext } from '../context.ts';
import { presentThread } from '../presenters.ts';
import type { ThreadEvaluationFilter, threadsRequestSchema, ThreadsResponse } from '../schemas.ts';
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
  const reviewed = req.reviewScore ? await ctx.reviewScoreFilter(projectId, req.reviewScore, 'body.reviewScore') : null;
  const evaluated = req.evaluation ? await evaluationFilter(ctx, projectId, req.evaluation) : null;
  const keep = [reviewed, evaluated].filter((picked) => picked !== null);
  const sortValues =
    req.sortByEvaluation !== undefined
      ? await evaluationSort(ctx, projectId, req.sortByEvaluation)
      : req.sortByScore === undefined
        ? null
        : await ctx.reviewScoreSort(projectId, req.sortByScore, 'body.sortByScore');
  const query = (page: number, pageSize: number, sortBy = req.sortBy, byScore = sortValues) =>
    ctx.aggregateThreads(ctx.db.orm, {
      projectId,
      search: { query: req.query, filters: req.filters, startDate, endDate },
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
  const scored = await ctx.reviewScores(projectId, ids);
  return {
    threads: found.map((t) =>
      presentThread(
        t,
        results.filter((r) => r.thread_id === t.thread_id),
        scored.get(t.thread_id) ?? [],
      ),
    ),
    pagination: { page: req.page, pageSize: req.pageSize, total: Number(total) },
  };
}

/** A thread evaluation's name the project has results of; else a 400 naming `field`. */
async function knownEvaluation(ctx: ThreadsContext, projectId: string, name: string, field: string): Promise<void> {
  if (!(await store.hasEvaluationNamed(ctx.db.orm, projectId, name))) throw badRequest('unknown_thread_evaluation', `${field}: no thread monitor named "${name}" has evaluated a thread of this project`, field);
}

/** The threads whose newest result of the evaluation matches (a typed relation); 400 naming the field of a filter that cannot match. */
async function evaluationFilter(ctx: ThreadsContext, projectId: string, f: ThreadEvaluationFilter) {
  if (f.min !== undefined && f.max !== undefined && f.max < f.min) throw badRequest('invalid_range', 'body.evaluation.max: below min', 'body.evaluation.max');
  await knownEvaluation(ctx, projectId, f.name, 'body.evaluation.name');
  return store.evaluationFilterRelation(projectId, f);
}

async function evaluationSort(ctx: ThreadsContext, projectId: string, name: string) {
  await knownEvaluation(ctx, projectId, name, 'body.sortByEvaluation');
  return store.evaluationSortRelation(projectId, name);
}
