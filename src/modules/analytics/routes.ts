import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AnalyticsService } from './service.ts';
import { timeseriesRequestSchema, timeseriesResponseSchema } from './schemas.ts';

export function analyticsRoutes(app: FastifyInstance, service: AnalyticsService) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/api/analytics/timeseries',
    {
      // Analytics read traces: no permission of their own.
      config: { auth: { scope: 'project', permission: 'traces:view' }, errorShape: 'nested' },
      schema: {
        tags: ['analytics'],
        summary: 'Traces, spans, errors, cost, tokens, latency percentiles, thumbs and evaluation pass rates per interval, optionally per model, label or user',
        body: timeseriesRequestSchema,
        response: { 200: timeseriesResponseSchema },
      },
    },
    (req) => service.timeseries(req.projectId!, req.body),
  );
}
