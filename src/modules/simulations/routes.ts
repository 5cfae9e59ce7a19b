import type { FastifyInstance, FastifyRequest } from 'fastify';
import { compareBatches } from './compare-batches.ts';
import { createScenario, listScenarios, presentScenario, removeScenario, replaceScenario, requireScenario } from './define-scenario.ts';
import { startBatch } from './start-batch.ts';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { SimulationsContext } from './context.ts';
import { archiveSimulationSet, getSimulationRun, listBatchRuns, listSimulationBatches, listSimulationSets } from './read-runs.ts';
import { reportEvent } from './report-event.ts';
import {
  archiveQuery,
  archiveResponse,
  batchParams,
  compareQuery,
  compareResponse,
  deletedResponse,
  runSetBody,
  runSetResponse,
  scenarioBody,
  scenarioListQuery,
  scenarioListResponse,
  scenarioParams,
  scenarioView,
  eventAccepted,
  runParams,
  scenarioEvent,
  setParams,
  simulationBatchesResponse,
  simulationBatchRunsResponse,
  simulationRun,
  simulationSetsResponse,
} from './schemas.ts';

/** A snapshot carries the whole conversation so far: room for long runs, as LangWatch allows (it takes 50 MB with inline media). */
const EVENT_BODY_LIMIT = 20 * 1024 * 1024;

/** Agent simulations: the events `@langwatch/scenario` reports, and the runs read back. The nested error shape. */
export function simulationRoutes(app: FastifyInstance, ctx: SimulationsContext) {
  routeGroup(app, { prefix: '/api/scenario-events', errors: 'nested', tag: { name: 'Simulations', title: 'Simulations' } }, (r) => {
    const project = projectRoute(r);
    project.post(
      '',
      {
        bodyLimit: EVENT_BODY_LIMIT,
        config: { auth: { scope: 'project', permission: 'simulations:create' } },
        schema: {
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
        schema: { summary: 'Archive every run of a scenario set (scenarioSetId is required)', querystring: archiveQuery, response: { 200: archiveResponse } },
      },
      (req, { projectId }) => archiveSimulationSet(ctx, projectId, req.query.scenarioSetId),
    );
  });

  routeGroup(app, { prefix: '/api/simulations', errors: 'nested', tag: { name: 'Simulations', title: 'Simulations' } }, (r, g) => {
    const project = projectRoute(r);
    const view = { auth: { scope: 'project' as const, permission: 'simulations:view' as const } };
    project.get('/sets', { config: view, schema: { summary: 'Scenario sets with their runs, batches and pass rates', response: { 200: simulationSetsResponse } } }, (_req, { projectId }) =>
      listSimulationSets(ctx, projectId),
    );
    project.get(
      '/sets/:scenarioSetId/batches',
      { config: view, schema: { summary: "A set's batches, newest first, each with its pass rate", params: setParams, response: { 200: simulationBatchesResponse, ...g.errors(404) } } },
      (req, { projectId }) => listSimulationBatches(ctx, projectId, req.params.scenarioSetId),
    );
    project.get(
      '/batches/:batchRunId/runs',
      { config: view, schema: { summary: "A batch's scenario runs with status, verdict and duration", params: batchParams, response: { 200: simulationBatchRunsResponse, ...g.errors(404) } } },
      (req, { projectId }) => listBatchRuns(ctx, projectId, req.params.batchRunId),
    );
    project.get(
      '/runs/:scenarioRunId',
      { config: view, schema: { summary: 'One run: the conversation, the verdict per criterion and the reasoning, the traces it produced', params: runParams, response: { 200: simulationRun, ...g.errors(404) } } },
      (req, { projectId }) => getSimulationRun(ctx, projectId, req.params.scenarioRunId),
    );

    // Simulations the server runs: scenarios, a set run as a batch, two batches compared.
    const create = { auth: { scope: 'project' as const, permission: 'simulations:create' as const } };
    const remove = { auth: { scope: 'project' as const, permission: 'simulations:delete' as const } };
    const origin = (req: FastifyRequest) => (ctx.server.publicUrl ?? `${req.protocol}://${req.host}`).replace(/\/$/, '');
    project.post(
      '/scenarios',
      { config: create, schema: { summary: 'Define a scenario the server runs: the user\'s persona and goal, the criteria, the maximum turns, the agent', body: scenarioBody, response: { 201: scenarioView, ...g.errors(400, 409) } } },
      async (req, scope, reply) => reply.status(201).send(await createScenario(ctx, scope, req.body)),
    );
    project.get(
      '/scenarios',
      { config: view, schema: { summary: 'Scenarios the server runs, by set and name (an agent\'s headers masked)', querystring: scenarioListQuery, response: { 200: scenarioListResponse } } },
      (req, { projectId }) => listScenarios(ctx, projectId, req.query.scenarioSetId),
    );
    project.get(
      '/scenarios/:scenarioId',
      { config: view, schema: { summary: 'One scenario', params: scenarioParams, response: { 200: scenarioView, ...g.errors(404) } } },
      async (req, { projectId }) => presentScenario(await requireScenario(ctx, projectId, req.params.scenarioId)),
    );
    project.put(
      '/scenarios/:scenarioId',
      { config: create, schema: { summary: 'Replace a scenario (headers not sent stay as stored)', params: scenarioParams, body: scenarioBody, response: { 200: scenarioView, ...g.errors(400, 404, 409) } } },
      (req, scope) => replaceScenario(ctx, scope, req.params.scenarioId, req.body),
    );
    project.delete(
      '/scenarios/:scenarioId',
      { config: remove, schema: { summary: 'Delete a scenario (its runs stay)', params: scenarioParams, response: { 200: deletedResponse, ...g.errors(404) } } },
      (req, { projectId }) => removeScenario(ctx, projectId, req.params.scenarioId),
    );
    project.post(
      '/sets/:scenarioSetId/run',
      {
        config: create,
        schema: {
          summary: "Run a set's scenarios as a batch on the server (each `repeat` times): the runs appear as reported ones do",
          params: setParams,
          body: runSetBody,
          response: { 201: runSetResponse, ...g.errors(400, 404) },
        },
      },
      async (req, scope, reply) => reply.status(201).send(await startBatch(ctx, scope, req.params.scenarioSetId, req.body, origin(req))),
    );
    project.get(
      '/sets/:scenarioSetId/compare',
      {
        config: view,
        schema: {
          summary: 'Two batches of a set compared: pass rate per scenario and overall, the paired difference and its verdict in words',
          params: setParams,
          querystring: compareQuery,
          response: { 200: compareResponse, ...g.errors(400) },
        },
      },
      (req, { projectId }) => compareBatches(ctx, projectId, req.params.scenarioSetId, req.query.baseline, req.query.candidate),
    );
  });
}
