import type { z } from 'zod';
import { badRequest } from '../../platform/errors.ts';
import { toMillis } from '../../platform/time-buckets.ts';
import { roundUsd, type AnalyticsContext, type AnalyticsScope } from './context.ts';
import type { UsersResponse, usersRequestSchema } from './schemas.ts';

/**
 * The application's end users (the traces' user_id): traces, cost, tokens, errors, thumbs,
 * first and last seen per user, over the traces the search and dates pick; sorted and paged.
 */
export async function users(ctx: AnalyticsContext, { projectId }: AnalyticsScope, req: z.output<typeof usersRequestSchema>): Promise<UsersResponse> {
  const startDate = req.startDate === undefined ? undefined : toMillis(req.startDate, 'startDate');
  const endDate = req.endDate === undefined ? undefined : toMillis(req.endDate, 'endDate');
  if (startDate !== undefined && endDate !== undefined && endDate < startDate) throw badRequest('invalid_range', 'endDate: before startDate', 'endDate');
  const found = await ctx.ports.traces.aggregateUsers(await ctx.db.reads.executor(), {
    projectId,
    search: { query: req.query, filters: req.filters, startDate, endDate },
    thumbs: ctx.ports.thumbs(projectId),
    contains: req.search || null,
    sortBy: req.sortBy,
    direction: req.sortDirection,
    limit: req.pageSize,
    offset: (req.page - 1) * req.pageSize,
  });
  let total = found[0]?.total ?? 0;
  // A page past the end has no row to carry the count.
  if (!found.length && req.page > 1) total = (await ctx.ports.traces.aggregateUsers(await ctx.db.reads.executor(), { projectId, search: { query: req.query, filters: req.filters, startDate, endDate }, thumbs: ctx.ports.thumbs(projectId), contains: req.search || null, sortBy: 'user_id', direction: 'asc', limit: 1, offset: 0 }))[0]?.total ?? 0;
  return {
    users: found.map((u) => ({
      user_id: u.user_id,
      traces: Number(u.traces),
      cost: roundUsd(Number(u.cost)),
      tokens: { prompt: Number(u.prompt_tokens), completion: Number(u.completion_tokens) },
      errors: Number(u.errors),
      thumbs_up: Number(u.thumbs_up),
      thumbs_down: Number(u.thumbs_down),
      first_seen: Number(u.first_seen),
      last_seen: Number(u.last_seen),
    })),
    pagination: { page: req.page, pageSize: req.pageSize, total: Number(total) },
  };
}
