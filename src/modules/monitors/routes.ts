import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
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

/** Monitor routes: the nested error shape. */
export function monitorRoutes(app: FastifyInstance, service: MonitorService) {
  routeGroup(app, { prefix: '/api/monitors', errors: 'nested' }, (r, g) => {
    const project = projectRoute(r);

    project.get(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, summary: "The project's monitors", response: { 200: z.object({ data: z.array(monitorSchema) }) } },
      },
      async (_req, { projectId }) => ({ data: await service.list(projectId) }),
    );

    project.post(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'monitors:manage' } },
        schema: { tags, summary: 'Create a monitor: an evaluator that runs by itself on matching incoming traces', body: createMonitorBody, response: { 200: monitorSchema } },
      },
      (req, { organizationId, projectId }) => service.create({ organizationId, projectId }, req.body),
    );

    project.get(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, params: idParams, response: { 200: monitorSchema, ...g.errors(404) } },
      },
      (req, { projectId }) => service.get(projectId, req.params.id),
    );

    project.patch(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'monitors:manage' } },
        schema: { tags, params: idParams, body: updateMonitorBody, response: { 200: monitorSchema, ...g.errors(404) } },
      },
      (req, { projectId }) => service.update(projectId, req.params.id, req.body),
    );

    project.delete(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'monitors:manage' } },
        schema: { tags, params: idParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) } },
      },
      (req, { projectId }) => service.remove(projectId, req.params.id),
    );

    project.get(
      '/:id/results',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, summary: "The monitor's results, newest first (each names its trace)", params: idParams, querystring: monitorResultsQuery, response: { 200: monitorResultsResponse, ...g.errors(404) } },
      },
      (req, { projectId }) => service.results(projectId, req.params.id, req.query),
    );

    project.get(
      '/:id/stats',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, summary: "The monitor's passed, failed, errors and skipped per interval: its pass rate over time", params: idParams, querystring: monitorStatsQuery, response: { 200: monitorStatsResponse, ...g.errors(404) } },
      },
      (req, { projectId }) => service.stats(projectId, req.params.id, req.query),
    );
  });
}
