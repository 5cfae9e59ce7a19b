import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { AlertsContext } from './context.ts';
import { createReport, deleteReport, getReport, listReports, replaceReport, sendReportNow } from './reports.ts';
import { digestSchema, reportBody, reportSchema } from './schemas.ts';

const tags = ['alerts'];
const idParams = z.object({ id: z.string().min(1).max(100) });

/** Report routes (reports.ts): the nested error shape, like the rules'. */
export function reportRoutes(app: FastifyInstance, ctx: AlertsContext) {
  routeGroup(app, { prefix: '/api/alerts/reports', errors: 'nested', tag: { name: 'alerts', title: 'Alerts' } }, (r, g) => {
    const project = projectRoute(r);
    const view = { auth: { scope: 'project' as const, permission: 'alerts:view' as const } };
    const manage = { auth: { scope: 'project' as const, permission: 'alerts:manage' as const } };
    project.get('/', { config: view, schema: { tags, summary: "The project's daily and weekly reports", response: { 200: z.object({ data: z.array(reportSchema) }) } } }, (_req, { projectId }) =>
      listReports(ctx, projectId),
    );
    project.post(
      '/',
      { config: manage, schema: { tags, summary: 'Create a daily or weekly report of the project, sent to chosen channels in the reader\'s time zone', body: reportBody, response: { 200: reportSchema } } },
      (req, scope) => createReport(ctx, scope, req.body),
    );
    project.get('/:id', { config: view, schema: { tags, params: idParams, response: { 200: reportSchema, ...g.errors(404) } } }, (req, { projectId }) => getReport(ctx, projectId, req.params.id));
    project.put(
      '/:id',
      { config: manage, schema: { tags, summary: "Replace a report's settings", params: idParams, body: reportBody, response: { 200: reportSchema, ...g.errors(404) } } },
      (req, { projectId }) => replaceReport(ctx, projectId, req.params.id, req.body),
    );
    project.delete(
      '/:id',
      { config: manage, schema: { tags, params: idParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) } } },
      (req, { projectId }) => deleteReport(ctx, projectId, req.params.id),
    );
    project.post(
      '/:id/send-now',
      {
        config: manage,
        schema: {
          tags,
          summary: 'Send the digest of the last ended period now (a preview: the scheduled send still happens); answers the digest',
          params: idParams,
          response: { 200: digestSchema.extend({ deliveries: z.number().int().describe('Messages queued to channels') }), ...g.errors(404) },
        },
      },
      (req, { projectId }) => sendReportNow(ctx, projectId, req.params.id),
    );
  });
}
