import type { FastifyInstance } from 'fastify';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { AnalyticsContext } from './context.ts';
import { timeseries } from './timeseries.ts';
import { users } from './users.ts';
import { timeseriesRequestSchema, timeseriesResponseSchema, usersRequestSchema, usersResponseSchema } from './schemas.ts';

/** Analytics routes: the nested error shape. */
export function analyticsRoutes(app: FastifyInstance, ctx: AnalyticsContext) {
  routeGroup(app, { prefix: '/api/analytics', errors: 'nested', tag: { name: 'analytics', title: 'Analytics' } }, (r) => {
    projectRoute(r).post(
      '/timeseries',
      {
        // Analytics read traces: no permission of their own.
        config: { auth: { scope: 'project', permission: 'traces:view' } },
        schema: {
          tags: ['analytics'],
          summary: 'Traces, spans, errors, cost, tokens, latency percentiles, thumbs and evaluation pass rates per interval, optionally per model, label or user',
          body: timeseriesRequestSchema,
          response: { 200: timeseriesResponseSchema },
        },
      },
      (req, scope) => timeseries(ctx, scope, req.body),
    );
    projectRoute(r).post(
      '/users',
      {
        config: { auth: { scope: 'project', permission: 'traces:view' } },
        schema: {
          tags: ['analytics'],
          summary: "The application's end users (traces' user_id): traces, cost, tokens, errors, thumbs, first and last seen; sorted and paged",
          body: usersRequestSchema,
          response: { 200: usersResponseSchema },
        },
      },
      (req, scope) => users(ctx, scope, req.body),
    );
  });
}
