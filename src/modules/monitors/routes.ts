import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { MonitorService } from './service.ts';
import {
  createMonitorBody,
  monitorResultsQuery,
  monitorResultsResponse,
  monitorSchema,
  monitorStatsQuery,
  monitorStatsResponse,
  updateMonitorBody,
} from './schemas.ts';

const tags = ['monitors'];
const idParams = z.object({ id: z.string().min(1).max(100) });

export function monitorRoutes(app: FastifyInstance, service: MonitorService) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/monitors',
    {
      config: { auth: { scope: 'project', permission: 'monitors:view' } },
      schema: { tags, summary: "The project's monitors", response: { 200: z.object({ data: z.array(monitorSchema) }) } },
    },
    async (req) => ({ data: await service.list(req.projectId!) }),
  );

  r.post(
    '/api/monitors',
    {
      config: { auth: { scope: 'project', permission: 'monitors:manage' } },
      schema: { tags, summary: 'Create a monitor: an evaluator that runs by itself on matching incoming traces', body: createMonitorBody, response: { 200: monitorSchema } },
    },
    (req) => service.create({ organizationId: req.principal!.organizationId, projectId: req.projectId! }, req.body),
  );

  r.get(
    '/api/monitors/:id',
    {
      config: { auth: { scope: 'project', permission: 'monitors:view' } },
      schema: { tags, params: idParams, response: { 200: monitorSchema } },
    },
    (req) => service.get(req.projectId!, req.params.id),
  );

  r.patch(
    '/api/monitors/:id',
    {
      config: { auth: { scope: 'project', permission: 'monitors:manage' } },
      schema: { tags, params: idParams, body: updateMonitorBody, response: { 200: monitorSchema } },
    },
    (req) => service.update(req.projectId!, req.params.id, req.body),
  );

  r.delete(
    '/api/monitors/:id',
    {
      config: { auth: { scope: 'project', permission: 'monitors:manage' } },
      schema: { tags, params: idParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }) } },
    },
    (req) => service.remove(req.projectId!, req.params.id),
  );

  r.get(
    '/api/monitors/:id/results',
    {
      config: { auth: { scope: 'project', permission: 'monitors:view' } },
      schema: { tags, summary: "The monitor's results, newest first (each names its trace)", params: idParams, querystring: monitorResultsQuery, response: { 200: monitorResultsResponse } },
    },
    (req) => service.results(req.projectId!, req.params.id, req.query),
  );

  r.get(
    '/api/monitors/:id/stats',
    {
      config: { auth: { scope: 'project', permission: 'monitors:view' } },
      schema: { tags, summary: "The monitor's passed, failed, errors and skipped per interval: its pass rate over time", params: idParams, querystring: monitorStatsQuery, response: { 200: monitorStatsResponse } },
    },
    (req) => service.stats(req.projectId!, req.params.id, req.query),
  );
}
