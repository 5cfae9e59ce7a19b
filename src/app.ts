import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import {
  hasZodFastifySchemaValidationErrors,
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import type { Clock } from './platform/clock.ts';
import { AppError, renderError, type ErrorShape, type FieldIssue } from './platform/errors.ts';
import { installAuth, type RouteAuthEntry } from './platform/auth/index.ts';
import type { TokenHasher } from './platform/tokens.ts';
import { AccountService, OrganizationService, organizationRoutes } from './modules/organizations/index.ts';
import { smtpMailer } from './platform/mail.ts';
import { ApiKeyService, apiKeyRoutes } from './modules/api-keys/index.ts';
import { PromptService, promptRoutes } from './modules/prompts/index.ts';
import { AnnotationService, annotationRoutes } from './modules/annotations/index.ts';
import { AgentCacheService, agentCacheRoutes } from './modules/agent-cache/index.ts';
import { loadKeyring } from './platform/crypto.ts';
import { TraceService, traceRoutes } from './modules/traces/index.ts';
import { EvaluationService, evaluationRoutes } from './modules/evaluators/index.ts';
import { runPeriodically } from './platform/periodic.ts';
import { installNulGuard } from './platform/nul-guard.ts';
import { JobQueue } from './platform/jobs/index.ts';
import { MONITOR_QUEUE, MonitorService, monitorRoutes } from './modules/monitors/index.ts';
import { annotatedTraceCondition, annotationCountsByTrace, deleteTraceAnnotations } from './modules/annotations/index.ts';
import { deleteTraceEvaluations, evaluationChipsByTrace, evaluationTraceCondition, listTraceEvaluations } from './modules/evaluators/index.ts';
import { installWebApp } from './web-app.ts';
import { buildWebhookService, WebhookService, webhookRoutes } from './modules/webhooks/index.ts';

export interface Deps {
  config: Config;
  db: Database;
  clock: Clock;
  logger: Logger;
  tokenHasher: TokenHasher;
}

export interface Services {
  organizations: OrganizationService;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  prompts: PromptService;
  annotations: AnnotationService;
  agentCache: AgentCacheService;
  traces: TraceService;
  evaluations: EvaluationService;
  webhooks: WebhookService;
  monitors: MonitorService;
  jobs: JobQueue;
}

export interface App {
  http: FastifyInstance;
  services: Services;
  /** Every route with the permission it needs (the auth test matrix reads it). */
  routeTable: RouteAuthEntry[];
}

export function buildServices(deps: Deps): Services {
  let organizations: OrganizationService;
  const apiKeys = new ApiKeyService(deps.db, deps.clock, deps.tokenHasher, () => organizations);
  organizations = new OrganizationService(deps.db, deps.clock, apiKeys);
  const { sessions, signIn, publicUrl, smtp } = deps.config;
  const mailer = smtp ? smtpMailer(smtp) : null;
  const accounts = new AccountService(deps.db, deps.clock, deps.tokenHasher, { sessions, signIn, publicUrl }, organizations, mailer, deps.logger);
  const traces = new TraceService(deps.db, deps.clock, {
    retentionPolicies: () => organizations.retentionPolicies(),
    holdProjectSql: (projectId) => organizations.holdProjectSql(projectId),
  });
  organizations.onProjectDeleted((tx, projectId) => traces.deleteProjectTraces(tx, projectId));
  const prompts = new PromptService(deps.db, deps.clock);
  const annotations = new AnnotationService(deps.db, deps.clock);
  const agentCache = new AgentCacheService(deps.db, deps.clock, loadKeyring(deps.config.encryptionKey, deps.config.dataDir));
  const evaluations = new EvaluationService(deps.db, deps.clock, deps.config.providerEnv);
  const webhooks = buildWebhookService(deps);
  const jobs = new JobQueue(deps.db, deps.clock);
  const monitors = new MonitorService(deps.db, deps.clock, {
    checkEvaluator: (path, settings) => evaluations.checkSettings(path, settings),
    evaluate: (scope, path, body) => evaluations.evaluate(scope, path, body),
    traceDetail: (projectId, traceId) => traces.detail(projectId, traceId),
  }, deps.config.monitors);
  jobs.handle(MONITOR_QUEUE, (job) => monitors.runJob(job));
  traces.extend({
    evaluations: (projectId, traceId) => listTraceEvaluations(deps.db, projectId, traceId) as never,
    filterConditions: (f) => [
      ...(f.has_annotation !== undefined ? [annotatedTraceCondition(f.has_annotation)] : []),
      ...(f.evaluation ? [evaluationTraceCondition(f.evaluation)] : []),
    ],
    listFacts: async (projectId, traceIds) => ({
      evaluations: await evaluationChipsByTrace(deps.db.orm, projectId, traceIds),
      annotations: await annotationCountsByTrace(deps.db.orm, projectId, traceIds),
    }),
    beforeCommit: (tx, batch) => monitors.enqueueForTraces(tx, batch),
    onTracesDeleted: async (tx, projectId, traceIds) => {
      await deleteTraceEvaluations(tx, projectId, traceIds);
      await deleteTraceAnnotations(tx, projectId, traceIds);
    },
  });
  return { organizations, accounts, apiKeys, traces, prompts, annotations, agentCache, evaluations, webhooks, monitors, jobs };
}

export async function buildApp(deps: Deps): Promise<App> {
  const http: FastifyInstance = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    // Behind a reverse proxy: the client's address (sign-in limits) and scheme (Secure cookies).
    trustProxy: deps.config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Trace ids reach 128 characters and prompt references 300; the default cap is 100.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 512 },
    // Before a route is found (bad percent-encoding, an overlong path parameter): the API's error shape, not Fastify's.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      const appError =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new AppError(414, 'path_parameter_too_long', 'path: a path parameter is longer than 512 characters', { field: 'path' })
          : error.code === 'FST_ERR_BAD_URL'
            ? new AppError(400, 'invalid_url', 'path: invalid percent-encoding in the URL', { field: 'path' })
            : new AppError(error.statusCode && error.statusCode < 500 ? error.statusCode : 400, 'bad_request', error.message);
      void reply.status(appError.status).send(renderError(appError, 'nested'));
    },
  });
  http.setValidatorCompiler(validatorCompiler);
  http.setSerializerCompiler(serializerCompiler);

  await http.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Spyglass',
        version: '1.0.0',
        description: 'LLM observability and evaluation: traces, prompts, annotations, evaluators, agent cache, webhooks.',
      },
      components: {
        securitySchemes: {
          project_api_key: { type: 'http', scheme: 'basic', description: 'Basic base64(projectId:token)' },
          bearer: { type: 'http', scheme: 'bearer', description: 'Bearer <token>; organization keys add X-Project-Id on project routes' },
          auth_token: { type: 'apiKey', in: 'header', name: 'X-Auth-Token' },
          session_cookie: { type: 'apiKey', in: 'cookie', name: 'spyglass_session', description: 'Signed in (POST /api/auth/signin); requests other than GET add X-CSRF-Token' },
        },
      },
      security: [{ project_api_key: [] }, { bearer: [] }, { auth_token: [] }, { session_cookie: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  const services = buildServices(deps);
  installNulGuard(http);
  const routeTable = await installAuth(
    http,
    {
      resolve: (token, now) => services.apiKeys.resolve(token, now),
      resolveSession: (token, now) => services.accounts.resolveSession(token, now),
      projectOrganization: (id) => services.organizations.projectOrganization(id),
    },
    deps.clock,
  );

  http.setErrorHandler((error: FastifyError, request, reply) => {
    const shape: ErrorShape = request.routeOptions?.config?.errorShape ?? 'nested';
    const appError = toAppError(error, request);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.status(appError.status).send(renderError(appError, shape));
  });
  http.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .send(renderError(new AppError(404, 'route_not_found', `no route ${request.method} ${request.url.split('?')[0]}`), 'nested'));
  });

  const r = http.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/healthz',
    {
      config: { auth: { scope: 'public' } },
      schema: { tags: ['meta'], summary: 'Answers 200 when the database answers', response: { 200: z.object({ status: z.literal('ok') }) } },
    },
    async () => {
      try {
        await deps.db.orm.execute(sql`SELECT 1`);
      } catch {
        throw new AppError(503, 'database_unavailable', 'the database does not answer');
      }
      return { status: 'ok' as const };
    },
  );
  http.get(
    '/api/openapi.json',
    { config: { auth: { scope: 'public' } }, schema: { hide: true } },
    async () => http.swagger(),
  );

  organizationRoutes(http, services.organizations, services.accounts);
  runPeriodically(http, 'sessions and links expiry', 10 * 60_000, () => services.accounts.sweep());
  apiKeyRoutes(http, services.apiKeys);
  promptRoutes(http, services.prompts);
  annotationRoutes(http, services.annotations);
  agentCacheRoutes(http, services.agentCache);
  runPeriodically(http, 'agent cache expiry', 60_000, () => services.agentCache.sweepExpired());
  traceRoutes(http, services.traces);
  evaluationRoutes(http, services.evaluations);
  runPeriodically(http, 'trace retention', 10 * 60_000, () => services.traces.sweepRetention());
  if (deps.db.kind === 'pglite') runPeriodically(http, 'planner statistics', 5 * 60_000, () => services.traces.refreshStatistics());
  monitorRoutes(http, services.monitors);
  // One process owns a PGlite database: jobs it had claimed when it last stopped (killed) are nobody's now.
  if (deps.db.kind === 'pglite') http.addHook('onReady', async () => void (await services.jobs.releaseClaims()));
  runPeriodically(http, 'jobs', 2_000, () => services.jobs.runDue());
  webhookRoutes(http, services.webhooks);
  services.webhooks.dispatcher.attach(http);
  await installWebApp(http, { shareShowsTrace: (token) => services.traces.shareShowsTrace(token) });

  await http.ready();
  return { http, services, routeTable };
}

/** Every failure becomes an AppError: validation and parsing errors name the field. */
function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'body';
    const issues: FieldIssue[] = error.validation.map((v) => ({
      field: [where, ...v.instancePath.split('/').filter(Boolean)].join('.'),
      message: v.message ?? 'invalid',
    }));
    const first = issues[0];
    return new AppError(400, 'validation_error', `${first.field}: ${first.message}`, { field: first.field, issues });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'invalid_json', `body: ${error.message}`, { field: 'body' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', `body: larger than this route accepts (${request.routeOptions.bodyLimit ?? 1048576} bytes)`, { field: 'body' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'unsupported_media_type', `content-type ${request.headers['content-type'] ?? '(none)'} is not accepted here`, { field: 'content-type' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(400, 'invalid_content_length', 'content-length does not match the body', { field: 'content-length' });
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError(error.statusCode, (error.code ?? 'bad_request').toLowerCase(), error.message);
  }
  return new AppError(500, 'internal_error', 'internal error');
}
