import type { FastifyInstance } from 'fastify';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { SimulationsContext } from './context.ts';
import { archiveSimulationSet, getSimulationRun, listBatchRuns, listSimulationBatches, listSimulationSets } from './read-runs.ts';
import { reportEvent } from './report-event.ts';
import {
  archiveQuery,
  archiveResponse,
  batchParams,
  eventAccepted,
  runParams,
  scenarioEvent,
  setParams,
  simulationBatchesResponse,
  simulationBatchRunsResponse,
  simulationRun,
  simulationSetsResponse,
} from './schemas.ts';

const tags = ['Simulations'];
/** A snapshot carries the whole conversation so far: room for long runs, as LangWatch allows (it takes 50 MB with inline media). */
const EVENT_BODY_LIMIT = 20 * 1024 * 1024;

/** Agent simulations: the events `@langwatch/scenario` reports, and the runs read back. The nested error shape. */
export function simulationRoutes(app: FastifyInstance, ctx: SimulationsContext) {
  routeGroup(app, { prefix: '/api/scenario-events', errors: 'nested' }, (r) => {
    const project = projectRoute(r);
    project.post(
      '',
      {
        bodyLimit: EVENT_BODY_LIMIT,
        config: { auth: { scope: 'project', permission: 'simulations:create' } },
        schema: {
          tags,
          summary: "One event of a scenario run, as LangWatch's Scenario package posts it: run started, a snapshot of the conversation, run finished with its verdict",
          body: scenarioEvent,
          response: { 201: eventAccepted },
        },
      },
      async (req, scope, reply) => reply.status(201).send(await reportEvent(ctx, scope, req.body)),
    );
    project.delete(
      '',
      {
        config: { auth: { scope: 'project', permission: 'simulations:delete' } },
        schema: { tags, summary: 'Archive every run of a scenario set (scenarioSetId is required)', querystring: archiveQuery, response: { 200: archiveResponse } },
      },
      (req, { projectId }) => archiveSimulationSet(ctx, projectId, req.query.scenarioSetId),
    );
  });

  routeGroup(app, { prefix: '/api/simulations', errors: 'nested' }, (r, g) => {
    const project = projectRoute(r);
    const view = { auth: { scope: 'project' as const, permission: 'simulations:view' as const } };
    project.get('/sets', { config: view, schema: { tags, summary: 'Scenario sets with their runs, batches and pass rates', response: { 200: simulationSetsResponse } } }, (_req, { projectId }) =>
      listSimulationSets(ctx, projectId),
    );
    project.get(
      '/sets/:scenarioSetId/batches',
      { config: view, schema: { tags, summary: "A set's batches, newest first, each with its pass rate", params: setParams, response: { 200: simulationBatchesResponse, ...g.errors(404) } } },
      (req, { projectId }) => listSimulationBatches(ctx, projectId, req.params.scenarioSetId),
    );
    project.get(
      '/batches/:batchRunId/runs',
      { config: view, schema: { tags, summary: "A batch's scenario runs with status, verdict and duration", params: batchParams, response: { 200: simulationBatchRunsResponse, ...g.errors(404) } } },
      (req, { projectId }) => listBatchRuns(ctx, projectId, req.params.batchRunId),
    );
    project.get(
      '/runs/:scenarioRunId',
      { config: view, schema: { tags, summary: 'One run: the conversation, the verdict per criterion and the reasoning, the traces it produced', params: runParams, response: { 200: simulationRun, ...g.errors(404) } } },
      (req, { projectId }) => getSimulationRun(ctx, projectId, req.params.scenarioRunId),
    );
  });
}
