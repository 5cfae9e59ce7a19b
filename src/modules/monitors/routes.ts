import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { MonitorsContext } from './context.ts';
import { cancelBackfill, getBackfill, listBackfills, previewBackfill, startBackfill } from './use-cases/backfills.ts';
import { createMonitor, getMonitor, listMonitors, removeMonitor, updateMonitor } from './use-cases/manage-monitors.ts';
import { monitorResultsPage, monitorStats } from './use-cases/monitor-stats.ts';
import {
  backfillBody,
  backfillPreviewSchema,
  backfillSchema,
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
const backfillParams = z.object({ id: z.string().min(1).max(100), backfillId: z.string().min(1).max(100) });

/** Monitor routes: the nested error shape. */
export function monitorRoutes(app: FastifyInstance, ctx: MonitorsContext) {
  routeGroup(app, { prefix: '/api/monitors', errors: 'nested', tag: { name: 'monitors', title: 'Monitors' } }, (r, g) => {
    const project = projectRoute(r);

    project.get(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, summary: "The project's monitors", response: { 200: z.object({ data: z.array(monitorSchema) }) } },
      },
      async (_req, { projectId }) => ({ data: await listMonitors(ctx, projectId) }),
    );

    project.post(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'monitors:manage' } },
        schema: { tags, summary: 'Create a monitor: an evaluator that runs by itself on matching incoming traces', body: createMonitorBody, response: { 200: monitorSchema } },
      },
      (req, { organizationId, projectId }) => createMonitor(ctx, { organizationId, projectId }, req.body),
    );

    project.get(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, params: idParams, response: { 200: monitorSchema, ...g.errors(404) } },
      },
      (req, { projectId }) => getMonitor(ctx, projectId, req.params.id),
    );

    project.patch(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'monitors:manage' } },
        schema: { tags, params: idParams, body: updateMonitorBody, response: { 200: monitorSchema, ...g.errors(404) } },
      },
      (req, { projectId }) => updateMonitor(ctx, projectId, req.params.id, req.body),
    );

    project.delete(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'monitors:manage' } },
        schema: { tags, params: idParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) } },
      },
      (req, { projectId }) => removeMonitor(ctx, projectId, req.params.id),
    );

    project.get(
      '/:id/results',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, summary: "The monitor's results, newest first (each names its trace)", params: idParams, querystring: monitorResultsQuery, response: { 200: monitorResultsResponse, ...g.errors(404) } },
      },
      (req, { projectId }) => monitorResultsPage(ctx, projectId, req.params.id, req.query),
    );

    project.get(
      '/:id/stats',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, summary: "The monitor's passed, failed, errors and skipped per interval: its pass rate over time", params: idParams, querystring: monitorStatsQuery, response: { 200: monitorStatsResponse, ...g.errors(404) } },
      },
      (req, { projectId }) => monitorStats(ctx, projectId, req.params.id, req.query),
    );
    project.post(
      '/:id/backfill/preview',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: {
          tags,
          summary: 'Before running the monitor over past traces: how many traces it would evaluate (at most limit) and an estimated cost',
          params: idParams,
          body: backfillBody,
          response: { 200: backfillPreviewSchema, ...g.errors(404) },
        },
      },
      (req, scope) => previewBackfill(ctx, scope, req.params.id, req.body),
    );

    project.post(
      '/:id/backfill',
      {
        config: { auth: { scope: 'project', permission: 'monitors:manage' } },
        schema: {
          tags,
          summary: 'Run the monitor over past traces, as a background job (202; GET .../backfills/{backfillId} for its progress); traces it already evaluated at this evaluator version are skipped',
          params: idParams,
          body: backfillBody,
          response: { 202: backfillSchema, ...g.errors(404, 409) },
        },
      },
      async (req, scope, reply) => reply.status(202).send(await startBackfill(ctx, scope, req.params.id, req.body)),
    );

    project.get(
      '/:id/backfills',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, summary: "The monitor's runs over past traces, newest first (the last 20)", params: idParams, response: { 200: z.object({ data: z.array(backfillSchema) }), ...g.errors(404) } },
      },
      async (req, { projectId }) => ({ data: await listBackfills(ctx, projectId, req.params.id) }),
    );

    project.get(
      '/:id/backfills/:backfillId',
      {
        config: { auth: { scope: 'project', permission: 'monitors:view' } },
        schema: { tags, summary: 'Progress of a run over past traces: state, total, done, evaluated, skipped, failed', params: backfillParams, response: { 200: backfillSchema, ...g.errors(404) } },
      },
      (req, { projectId }) => getBackfill(ctx, projectId, req.params.id, req.params.backfillId),
    );

    project.post(
      '/:id/backfills/:backfillId/cancel',
      {
        config: { auth: { scope: 'project', permission: 'monitors:manage' } },
        schema: { tags, summary: 'Stop a run over past traces after the trace being evaluated (results stored so far stay)', params: backfillParams, response: { 200: backfillSchema, ...g.errors(404) } },
      },
      (req, { projectId }) => cancelBackfill(ctx, projectId, req.params.id, req.params.backfillId),
    );
  });
}
