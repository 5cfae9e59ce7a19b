import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { DashboardsContext } from './context.ts';
import { chartDataBody, chartDataSchema, chartParams, dashboardDefinitionSchema, dashboardIdParams, dashboardListSchema, dashboardSchema } from './schemas.ts';
import { getDashboard } from './use-cases/get-dashboard.ts';
import { listDashboards } from './use-cases/list-dashboards.ts';
import { readChartData } from './use-cases/read-chart.ts';
import { createDashboard, deleteDashboard, parseIfMatch, putDashboard } from './use-cases/save-dashboard.ts';

/** A dashboard's version as its ETag: what If-Match sends back. */
const etag = (d: { version: number }) => `"${d.version}"`;
const ifMatchHeaders = z.object({
  'if-match': z
    .string()
    .max(200)
    .optional()
    .describe('The ETag of the version the editor read (GET answers it): the write goes ahead only over that version, else 412'),
});

const tags = ['dashboards'];

/** Dashboards: definitions read and written whole, and each chart's data. The nested error shape. */
export function dashboardRoutes(app: FastifyInstance, ctx: DashboardsContext) {
  routeGroup(app, { prefix: '/api/dashboards', errors: 'nested', tag: { name: 'dashboards', title: 'Dashboards' } }, (r, g) => {
    const project = projectRoute(r);
    const view = { auth: { scope: 'project' as const, permission: 'dashboards:view' as const } };
    const manage = { auth: { scope: 'project' as const, permission: 'dashboards:manage' as const } };

    project.get('/', { config: view, schema: { tags, summary: "The project's dashboards, the default one first", response: { 200: dashboardListSchema } } }, (_req, { projectId }) =>
      listDashboards(ctx, projectId),
    );
    project.post(
      '/',
      { config: manage, schema: { tags, summary: 'Create a dashboard from a whole definition', body: dashboardDefinitionSchema, response: { 200: dashboardSchema } } },
      (req, scope) => createDashboard(ctx, scope, req.body),
    );
    project.get(
      '/:id',
      { config: view, schema: { tags, summary: "A dashboard's whole definition (id default: the project's default dashboard), its version as the ETag", params: dashboardIdParams, response: { 200: dashboardSchema, ...g.errors(404) } } },
      async (req, { projectId }, reply) => {
        const dashboard = await getDashboard(ctx, projectId, req.params.id);
        return reply.header('etag', etag(dashboard)).send(dashboard);
      },
    );
    project.put(
      '/:id',
      {
        config: manage,
        schema: {
          tags,
          summary: "Replace a dashboard's whole definition, or create it under this id (a definition kept in git is put back as is); with If-Match, only over the version read (412 when someone saved since)",
          params: dashboardIdParams,
          headers: ifMatchHeaders,
          body: dashboardDefinitionSchema,
          response: { 200: dashboardSchema, ...g.errors(412) },
        },
      },
      async (req, scope, reply) => {
        const saved = await putDashboard(ctx, scope, req.params.id, req.body, parseIfMatch(req.headers['if-match']));
        return reply.header('etag', etag(saved)).send(saved);
      },
    );
    project.delete(
      '/:id',
      { config: manage, schema: { tags, summary: 'Delete a dashboard (the default one goes back to the built-in default)', params: dashboardIdParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) } } },
      (req, { projectId }) => deleteDashboard(ctx, projectId, req.params.id),
    );
    project.post(
      '/:id/charts/:chartId/data',
      {
        config: view,
        schema: {
          tags,
          summary: "One chart's series and whole-range figure, with the analytics request it read (POST /api/analytics/timeseries answers the same numbers to it)",
          params: chartParams,
          body: chartDataBody,
          response: { 200: chartDataSchema, ...g.errors(404) },
        },
      },
      (req, { projectId }) => readChartData(ctx, projectId, req.params.id, req.params.chartId, req.body),
    );
  });
}
