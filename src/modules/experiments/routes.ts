import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { projectRoute, routeGroup, type ProjectScope } from '../../platform/http/route-group.ts';
import { defineExperiment, readDefinition } from './define-experiment.ts';
import { initExperiment } from './init-experiment.ts';
import { logResults } from './log-results.ts';
import type { PlatformDeps, PlatformScope } from './platform-context.ts';
import { listExperiments, listRuns, readRunResults } from './read-runs.ts';
import { runKey, type RunEvent } from './run-bus.ts';
import type { PlatformRunner } from './run-cells.ts';
import { runStatus } from './run-status.ts';
import { markBaseline, readBaseline } from './baseline.ts';
import { compareRows, compareRuns, regressions } from './compare-runs.ts';
import { runSummary } from './run-analysis.ts';
import { runRows } from './run-rows.ts';
import {
  baselineBody,
  baselineResponse,
  compareQuery,
  compareResponse,
  compareRowsQuery,
  compareRowsResponse,
  regressionsQuery,
  regressionsResponse,
  runRowsQuery,
  runRowsResponse,
  runSummaryResponse,
  slugParams,
  slugRunParams,
  definitionBody,
  definitionResponse,
  experimentListResponse,
  initBody,
  initResponse,
  LOG_RESULTS_BODY_LIMIT,
  logResultsBody,
  okResponse,
  experimentsQuery,
  PLATFORM_SLUG_PARAMS,
  renameRunBody,
  runListResponse,
  runSchema,
  runParams,
  runQuery,
  runResultsResponse,
  runsQuery,
  runStatusResponse,
  startRunBody,
  startRunResponse,
  stopParams,
  stopRunResponse,
  type StartRunBody,
} from './schemas.ts';
import { renameRun } from './rename-run.ts';
import { startRun, stopRun } from './start-run.ts';

const tags = ['experiments'];
const view = { scope: 'project', permission: 'experiments:view' } as const;
const create = { scope: 'project', permission: 'experiments:create' } as const;
const update = { scope: 'project', permission: 'experiments:update' } as const;

export interface ExperimentRoutesOptions {
  deps: PlatformDeps;
  runner: PlatformRunner;
}

const platformScope = (s: ProjectScope): PlatformScope => ({ organizationId: s.organizationId, projectId: s.projectId, userId: s.userId });

/**
 * Experiments (docs/experiments.md): logged by an SDK (init, log_results, runs, results,
 * status) and run by the platform (definition, run, stop). Errors in the nested shape, with
 * the spec's codes: a body that is not JSON answers 400 validation_error, not 415.
 */
export function experimentRoutes(app: FastifyInstance, { deps, runner }: ExperimentRoutesOptions): void {
  const origin = (req: FastifyRequest) => (deps.publicUrl ?? `${req.protocol}://${req.host}`).replace(/\/$/, '');
  routeGroup(app, { errors: 'nested', mapError: specError, tag: { name: 'experiments', title: 'Experiments' } }, (r, g) => {
    const project = projectRoute(r);

    project.post(
      '/api/experiment/init',
      {
        config: { auth: create },
        schema: { tags, summary: 'Find or create an experiment by slug (or id): answers its slug and page path', body: initBody, response: { 200: initResponse, ...g.errors(404) } },
      },
      (req, { projectId }) => initExperiment(deps, projectId, req.body),
    );

    project.post(
      '/api/evaluations/batch/log_results',
      {
        bodyLimit: LOG_RESULTS_BODY_LIMIT,
        // NUL and lone surrogates in model output are stored as U+FFFD, not refused.
        config: { auth: create, acceptsNulInBody: true },
        schema: {
          tags,
          summary: "Log a batch of a run's result rows, evaluations and targets; re-posted keys replace (docs/experiments.md: merge rules)",
          body: logResultsBody,
          response: { 200: okResponse, ...g.errors(404) },
        },
      },
      (req, { organizationId, projectId }) => logResults(deps, { organizationId, projectId }, req.body),
    );

    project.get(
      '/api/experiments',
      {
        config: { auth: view },
        schema: { tags, summary: 'Experiments of the project, most recently updated first (`?datasetId=`: those set up on that dataset)', querystring: experimentsQuery, response: { 200: experimentListResponse } },
      },
      (req, { projectId }) => listExperiments(deps, projectId, req.query),
    );

    project.get(
      '/api/experiments/runs',
      {
        config: { auth: view },
        schema: { tags, summary: 'Runs of an experiment, newest first, each with its aggregate', querystring: runsQuery, response: { 200: runListResponse, ...g.errors(404) } },
      },
      (req, { projectId }) => listRuns(deps, projectId, req.query),
    );

    for (const prefix of ['/api/experiments/runs', '/api/evaluations/v3/runs']) {
      const alias = prefix.startsWith('/api/evaluations') ? ' (alias of /api/experiments/runs/{runId}/results)' : '';
      project.get(
        `${prefix}/:runId/results`,
        {
          config: { auth: view },
          schema: { tags, summary: `A run's de-duplicated result rows and evaluations${alias}`, params: runParams, querystring: runQuery, response: { 200: runResultsResponse, ...g.errors(404) } },
        },
        async (req, { projectId }, reply) => {
          const results = await readRunResults(deps, projectId, req.params.runId, req.query.experimentSlug);
          // A run reaches 10,000 rows and as many evaluations: the presenter's typed answer is
          // serialized as is, without re-checking every item against the response schema (2.5x faster).
          return reply.serializer(JSON.stringify).send(results);
        },
      );
      project.get(
        `${prefix}/:runId`,
        {
          config: { auth: view },
          schema: {
            tags,
            summary: `A run's status: running, completed or stopped, with its summary once it ended${alias ? ' (alias of /api/experiments/runs/{runId})' : ''}`,
            params: runParams,
            querystring: runQuery,
            response: { 200: runStatusResponse, ...g.errors(404) },
          },
        },
        (req, { projectId }) => runStatus(deps, projectId, req.params.runId, req.query.experimentSlug, origin(req)),
      );
    }

    // ---- Platform-run experiments (EVALUATIONS_V3) ----

    project.put(
      '/api/experiments/:slug/definition',
      {
        config: { auth: create },
        schema: {
          tags,
          summary:
            'Define a platform-run experiment (EVALUATIONS_V3) by slug, or replace its definition: a dataset (and version), targets (prompt versions or HTTP agents), evaluators of the catalogue with settings and data mappings, concurrency',
          params: PLATFORM_SLUG_PARAMS,
          body: definitionBody,
          response: { 200: definitionResponse, ...g.errors(404, 409) },
        },
      },
      (req, scope) => defineExperiment(deps, platformScope(scope), req.params.slug, req.body),
    );

    project.get(
      '/api/experiments/:slug/definition',
      {
        config: { auth: view },
        schema: { tags, summary: "A platform-run experiment's definition (header values of HTTP targets redacted)", params: PLATFORM_SLUG_PARAMS, response: { 200: definitionResponse, ...g.errors(404) } },
      },
      (req, scope) => readDefinition(deps, platformScope(scope), req.params.slug),
    );

    for (const prefix of ['/api/experiments', '/api/evaluations/v3']) {
      project.post(
        `${prefix}/:slug/run`,
        {
          bodyLimit: LOG_RESULTS_BODY_LIMIT,
          // An empty body with a JSON content type is no body: the run runs the saved dataset.
          onRequest: (req, _reply, done) => {
            if (req.headers['content-length'] === '0') delete req.headers['content-type'];
            done();
          },
          config: { auth: create },
          schema: {
            tags,
            summary: `Start a run of a platform-run experiment: answers {runId, status, total, runUrl}; with Accept: text/event-stream, streams the run's events until done or stopped${prefix === '/api/evaluations/v3' ? ' (alias of /api/experiments/{slug}/run)' : ''}`,
            params: PLATFORM_SLUG_PARAMS,
            body: startRunBody,
            response: { 200: startRunResponse, ...g.errors(404) },
          },
        },
        async (req, scope, reply) => {
          if (wantsStream(req)) return streamRun(deps, runner, platformScope(scope), req.params.slug, req.body, origin(req), reply);
          const { answer } = await startRun(deps, runner, platformScope(scope), req.params.slug, req.body, origin(req));
          return answer;
        },
      );
    }

    project.post(
      '/api/experiments/:slug/runs/:runId/stop',
      {
        config: { auth: create },
        schema: {
          tags,
          summary: 'Stop a platform run: no further cell starts, cells in flight are dropped; what was stored stays (status stopped, with its summary)',
          params: stopParams,
          response: { 200: stopRunResponse, ...g.errors(404) },
        },
      },
      (req, scope) => stopRun(deps, runner, platformScope(scope), req.params.slug, req.params.runId),
    );

    project.patch(
      '/api/experiments/:slug/runs/:runId',
      {
        config: { auth: update },
        schema: {
          tags,
          summary: "Name a run (SDK-logged or platform): the name the runs list, comparisons and the CLI show; null or empty gives back the default (a logged run's id; a platform run's prompts, models and start time)",
          params: stopParams,
          body: renameRunBody,
          response: { 200: runSchema, ...g.errors(404) },
        },
      },
      (req, { projectId }) => renameRun(deps, projectId, req.params.slug, req.params.runId, req.body.name),
    );

    // Reading and comparing runs (docs/experiments.md): Spyglass's own routes, by experiment slug.
    project.get(
      '/api/experiments/:slug/runs/:runId/summary',
      {
        config: { auth: view },
        schema: {
          tags,
          summary: "A run's statistics overall and per target: per evaluator mean score, pass rate, latency p50/p95 and total cost, each with a 95% interval",
          params: slugRunParams,
          response: { 200: runSummaryResponse, ...g.errors(404) },
        },
      },
      (req, { projectId }) => runSummary(deps, projectId, req.params.slug, req.params.runId),
    );
    project.get(
      '/api/experiments/:slug/runs/:runId/rows',
      {
        config: { auth: view },
        schema: {
          tags,
          summary: "A run's rows with their evaluations: filtered (where=<column><op><value>), sorted by any column, paged",
          params: slugRunParams,
          querystring: runRowsQuery,
          response: { 200: runRowsResponse, ...g.errors(404) },
        },
      },
      async (req, { projectId }, reply) => reply.serializer(JSON.stringify).send(await runRows(deps, projectId, req.params.slug, req.params.runId, req.query)),
    );
    project.get(
      '/api/experiments/:slug/compare',
      {
        config: { auth: view },
        schema: {
          tags,
          summary: 'Compare runs with a baseline: per evaluator the paired difference of pass rate and mean score, its 95% interval and a verdict',
          params: slugParams,
          querystring: compareQuery,
          response: { 200: compareResponse, ...g.errors(404) },
        },
      },
      (req, { projectId }) => compareRuns(deps, projectId, req.params.slug, req.query),
    );
    project.get(
      '/api/experiments/:slug/compare/rows',
      {
        config: { auth: view },
        schema: {
          tags,
          summary: "Runs' rows side by side, joined by dataset row index and target, paged",
          params: slugParams,
          querystring: compareRowsQuery,
          response: { 200: compareRowsResponse, ...g.errors(404) },
        },
      },
      async (req, { projectId }, reply) => reply.serializer(JSON.stringify).send(await compareRows(deps, projectId, req.params.slug, req.query)),
    );
    project.get(
      '/api/experiments/:slug/compare/regressions',
      {
        config: { auth: view },
        schema: {
          tags,
          summary: 'Results that passed in the baseline and fail in the run (regressed), and the reverse (improved)',
          params: slugParams,
          querystring: regressionsQuery,
          response: { 200: regressionsResponse, ...g.errors(404) },
        },
      },
      (req, { projectId }) => regressions(deps, projectId, req.params.slug, req.query),
    );
    project.get(
      '/api/experiments/:slug/baseline',
      {
        config: { auth: view },
        schema: { tags, summary: "The experiment's baseline run (null when none is marked)", params: slugParams, response: { 200: baselineResponse, ...g.errors(404) } },
      },
      (req, { projectId }) => readBaseline(deps, projectId, req.params.slug),
    );
    project.put(
      '/api/experiments/:slug/baseline',
      {
        config: { auth: update },
        schema: {
          tags,
          summary: "Mark a run as the experiment's baseline (runId null: none); comparisons default to it",
          params: slugParams,
          body: baselineBody,
          response: { 200: baselineResponse, ...g.errors(404) },
        },
      },
      (req, { projectId }) => markBaseline(deps, projectId, req.params.slug, req.body.runId),
    );
  });
}

function wantsStream(req: FastifyRequest): boolean {
  return (req.headers.accept ?? '').toLowerCase().includes('text/event-stream');
}

/**
 * The run's events as a text/event-stream (frames `data: <json>` and a blank line), ending
 * after done or stopped. A client that goes away does not stop the run. A run this process
 * does not run (another process took it) is followed through its status until it ends.
 */
async function streamRun(deps: PlatformDeps, runner: PlatformRunner, scope: PlatformScope, slug: string, body: StartRunBody, origin: string, reply: FastifyReply): Promise<FastifyReply> {
  const queued: RunEvent[] = [];
  let write: ((e: RunEvent) => void) | null = null;
  let unsubscribe = () => {};
  let seen = false;
  const { answer } = await startRun(deps, runner, scope, slug, body, origin, ({ experimentId, runId }) => {
    unsubscribe = runner.bus.on(runKey(experimentId, runId), (e) => {
      seen = true;
      if (write) write(e);
      else queued.push(e);
    });
  });
  void reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  let ended = false;
  let quietPolls = 0;
  const poll = setInterval(() => {
    void runStatus(deps, scope.projectId, answer.runId, slug, origin)
      .then((status) => {
        if (status.status === 'running' || ended) return;
        // This process's runner sends done itself; wait a little for it before writing one from the status.
        if (seen && ++quietPolls < 3) return;
        write?.(status.status === 'stopped' ? { type: 'stopped', reason: 'user' } : { type: 'done', summary: status.summary! });
      })
      .catch(() => {});
  }, 2_000);
  const end = () => {
    if (ended) return;
    ended = true;
    unsubscribe();
    clearInterval(poll);
    raw.end();
  };
  write = (e) => {
    if (ended) return;
    raw.write(`data: ${JSON.stringify(e)}\n\n`);
    if (e.type === 'done' || e.type === 'stopped') end();
  };
  if (!queued.some((e) => e.type === 'execution_started')) write({ type: 'execution_started', runId: answer.runId, total: answer.total });
  for (const e of queued.splice(0)) write(e);
  raw.on('close', end);
  return reply;
}

/** The spec's codes where they differ from the house's: a body that is not JSON is a 400 validation_error. */
function specError(error: FastifyError, request: FastifyRequest): AppError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(400, 'validation_error', 'content-type: send the body as application/json', { field: 'content-type' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'validation_error', `body: not valid JSON (${error.message})`, { field: 'body' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', `body: larger than the ${request.routeOptions.bodyLimit ?? LOG_RESULTS_BODY_LIMIT} bytes this route accepts; send it in smaller batches`, {
        field: 'body',
      });
  }
  return null;
}
