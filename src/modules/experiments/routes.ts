import type { FastifyError, FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError, renderError } from '../../platform/errors.ts';
import type { ExperimentsContext } from './context.ts';
import { initExperiment } from './init-experiment.ts';
import { logResults } from './log-results.ts';
import { listExperiments, listRuns, readRunResults } from './read-runs.ts';
import { runStatus } from './run-status.ts';
import {
  errorSchema,
  experimentListResponse,
  initBody,
  initResponse,
  LOG_RESULTS_BODY_LIMIT,
  logResultsBody,
  okResponse,
  pagingQuery,
  runListResponse,
  runParams,
  runQuery,
  runResultsResponse,
  runsQuery,
  runStatusResponse,
} from './schemas.ts';

const tags = ['experiments'];
const view = { scope: 'project', permission: 'experiments:view' } as const;
const create = { scope: 'project', permission: 'experiments:create' } as const;
const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

export interface ExperimentRoutesOptions {
  ctx: ExperimentsContext;
  /** The server's public origin (SPYGLASS_PUBLIC_URL); else the request's own. */
  publicUrl: string | null;
}

/**
 * Experiments logged by an SDK (docs/experiments.md): a Fastify plugin with its own error
 * handler, so every answer of these routes is `{error: {type, code, message, meta?}}` and the
 * spec's codes (a body that is not JSON: 400 validation_error, not 415).
 */
export function experimentRoutes(app: FastifyInstance, { ctx, publicUrl }: ExperimentRoutesOptions, done: (err?: Error) => void): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = mapError(error);
    if (!mapped) throw error; // zod validation and the rest: the app's handler renders them in the same shape
    if (mapped.status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.status(mapped.status).send(renderError(mapped, 'nested'));
  });
  const r = app.withTypeProvider<ZodTypeProvider>();
  const origin = (req: { protocol: string; host: string }) => (publicUrl ?? `${req.protocol}://${req.host}`).replace(/\/$/, '');

  r.post(
    '/api/experiment/init',
    {
      config: { auth: create },
      schema: { tags, summary: 'Find or create an experiment by slug (or id): answers its slug and page path', body: initBody, response: { 200: initResponse, ...errors } },
    },
    (req) => initExperiment(ctx, req.projectId!, req.body),
  );

  r.post(
    '/api/evaluations/batch/log_results',
    {
      bodyLimit: LOG_RESULTS_BODY_LIMIT,
      // NUL and lone surrogates in model output are stored as U+FFFD, not refused.
      config: { auth: create, acceptsNulInBody: true },
      schema: {
        tags,
        summary: 'Log a batch of a run\'s result rows, evaluations and targets; re-posted keys replace (docs/experiments.md: merge rules)',
        body: logResultsBody,
        response: { 200: okResponse, ...errors, 413: errorSchema },
      },
    },
    (req) => logResults(ctx, { organizationId: req.principal!.organizationId, projectId: req.projectId! }, req.body),
  );

  r.get(
    '/api/experiments',
    {
      config: { auth: view },
      schema: { tags, summary: 'Experiments of the project, most recently updated first', querystring: pagingQuery, response: { 200: experimentListResponse, ...errors } },
    },
    (req) => listExperiments(ctx, req.projectId!, req.query),
  );

  r.get(
    '/api/experiments/runs',
    {
      config: { auth: view },
      schema: { tags, summary: 'Runs of an experiment, newest first, each with its aggregate', querystring: runsQuery, response: { 200: runListResponse, ...errors } },
    },
    (req) => listRuns(ctx, req.projectId!, req.query),
  );

  for (const prefix of ['/api/experiments/runs', '/api/evaluations/v3/runs']) {
    const alias = prefix.startsWith('/api/evaluations') ? ' (alias of /api/experiments/runs/{runId}/results)' : '';
    r.get(
      `${prefix}/:runId/results`,
      {
        config: { auth: view },
        schema: { tags, summary: `A run's de-duplicated result rows and evaluations${alias}`, params: runParams, querystring: runQuery, response: { 200: runResultsResponse, ...errors } },
      },
      async (req, reply) => {
        const results = await readRunResults(ctx, req.projectId!, req.params.runId, req.query.experimentSlug);
        // A run reaches 10,000 rows and as many evaluations: the presenter's typed answer is
        // serialized as is, without re-checking every item against the response schema (2.5x faster).
        return reply.serializer(JSON.stringify).send(results);
      },
    );
    r.get(
      `${prefix}/:runId`,
      {
        config: { auth: view },
        schema: {
          tags,
          summary: `A run's status: running, completed or stopped, with its summary once it ended${alias ? ' (alias of /api/experiments/runs/{runId})' : ''}`,
          params: runParams,
          querystring: runQuery,
          response: { 200: runStatusResponse, ...errors },
        },
      },
      (req) => runStatus(ctx, req.projectId!, req.params.runId, req.query.experimentSlug, origin(req)),
    );
  }
  done();
}

function mapError(error: FastifyError): AppError | null {
  if (error instanceof AppError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(400, 'validation_error', 'content-type: send the body as application/json', { field: 'content-type' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'validation_error', `body: not valid JSON (${error.message})`, { field: 'body' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', `body: larger than the ${LOG_RESULTS_BODY_LIMIT} bytes (20 MiB) a results post may hold; post the run in smaller batches`, {
        field: 'body',
      });
  }
  return null;
}
