import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { sortedJsonSchemaTransformObject } from './platform/http/openapi-document.ts';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import type { Clock } from './platform/clock.ts';
import { AppError, renderError } from './platform/errors.ts';
import { errorHandler } from './platform/http/error-handler.ts';
import { installAuth, type CredentialStore, type RouteAuthEntry } from './platform/auth/index.ts';
import type { TokenHasher } from './platform/tokens.ts';
import { buildOrganizations, organizationDirectory, organizationStore, PasswordHasher, registerOrganizations, type Accounts, type Organizations } from './modules/organizations/index.ts';
import { smtpMailer } from './platform/mail.ts';
import { buildApiKeys, registerApiKeys, type ApiKeys } from './modules/api-keys/index.ts';
import { buildPrompts, registerPrompts, type Prompts } from './modules/prompts/index.ts';
import { buildAnnotations, registerAnnotations, type Annotations } from './modules/annotations/index.ts';
import { buildReview, registerReview, type ReviewDeps } from './modules/review/index.ts';
import { buildAgentCache, registerAgentCache, type AgentCache } from './modules/agent-cache/index.ts';
import { loadKeyring } from './platform/crypto.ts';
import { buildTraces, OtlpGrpcServer, registerTraces, type Traces } from './modules/traces/index.ts';
import { buildEvaluators, registerEvaluators, type EvaluatorsContext } from './modules/evaluators/index.ts';
import { buildAlerts, registerAlerts } from './modules/alerts/index.ts';
import { Scheduler } from './platform/periodic.ts';
import { installNulGuard } from './platform/nul-guard.ts';
import { JobQueue } from './platform/jobs/index.ts';
import { buildMonitors, monitorsTraceExtension, registerMonitors, type MonitorsContext } from './modules/monitors/index.ts';
import { annotationsTraceExtension } from './modules/annotations/index.ts';
import { evaluationsTraceExtension } from './modules/evaluators/index.ts';
import { buildAnalytics, registerAnalytics, type Analytics } from './modules/analytics/index.ts';
import { installWebApp } from './web-app.ts';
import { installMetricsRoute, Metrics } from './platform/metrics.ts';
import { echoRequestId, requestIdOptions } from './platform/request-id.ts';
import { installReadAfter } from './platform/http/read-after.ts';
import { installCompression } from './platform/compression.ts';
import { ReadPriority } from './platform/read-priority.ts';
import { registerGauges } from './platform/gauges.ts';
import { installHealthRoutes } from './platform/http/health.ts';
import { installReadPriority } from './platform/http/read-priority-hooks.ts';
import { buildWebhooks, registerWebhooks, type Webhooks } from './modules/webhooks/index.ts';
import { registerDatasets } from './modules/datasets/index.ts';
import { registerMcp } from './modules/mcp/index.ts';
import { packageVersion } from './package-dir.ts';
import { buildExperiments, registerExperiments, resealTargetHeaders, TargetHeaders } from './modules/experiments/index.ts';
import type { Resealers } from './ops/key-changes.ts';
import { buildModelProviders, registerModelProviders, type ModelProviders } from './modules/model-providers/index.ts';
import { buildPrivacy, privacyTraceExtension, registerPrivacy, type PrivacyPorts } from './modules/privacy/index.ts';
import { registerSimulations, resealAgentHeaders } from './modules/simulations/index.ts';
import { registerDashboards } from './modules/dashboards/index.ts';
import { buildThreads, registerThreads, type ThreadsContext } from './modules/threads/index.ts';
import { buildTopics, registerTopics, topicsTraceExtension, type Topics, type TopicsContext } from './modules/topics/index.ts';
import { buildJudgeAlignment, judgeAlignmentContext, registerJudgeAlignment, type JudgeAlignmentContext, type JudgeTrustPort } from './modules/judge-alignment/index.ts';

export interface Deps {
  config: Config;
  db: Database;
  clock: Clock;
  logger: Logger;
  tokenHasher: TokenHasher;
  /** Tests only: privacy at ingest with a detector made to fail, or a smaller time budget. */
  privacy?: PrivacyPorts['overrides'];
}

export interface Services {
  organizations: Organizations;
  accounts: Accounts;
  apiKeys: ApiKeys;
  prompts: Prompts;
  /** Annotations and score configs: the module's context, and what it offers review, judge alignment and alerts. */
  annotations: Annotations;
  /** Annotation queues (the review module): what its use cases are given. */
  review: ReviewDeps;
  agentCache: AgentCache;
  traces: Traces;
  /** Evaluators (the module's context; its limits are the model gateway's). */
  evaluations: EvaluatorsContext;
  modelProviders: ModelProviders;
  webhooks: Webhooks;
  /** Monitors (the module's context). */
  monitors: MonitorsContext;
  /** Threads evaluated as a whole, and listed (the threads module's context). */
  threads: ThreadsContext;
  analytics: Analytics;
  jobs: JobQueue;
  metrics: Metrics;
  /** Privacy at ingest: redaction for every ingest path. */
  privacy: ReturnType<typeof buildPrivacy>;
  /** PGlite: ingest transactions wait while read requests are in progress. */
  readPriority: ReadPriority;
  /** Alert rules evaluated window by window. */
  alerts: ReturnType<typeof buildAlerts>;
  /** Topics: traces' inputs embedded and clustered. */
  topics: { ctx: TopicsContext; topics: Topics };
  /** Judges measured against people: the module's context, and whether a judge can be trusted. */
  judgeAlignment: { ctx: JudgeAlignmentContext; trust: JudgeTrustPort };
}

export interface App {
  http: FastifyInstance;
  services: Services;
  /** Every route with the permission it needs (the auth test matrix reads it). */
  routeTable: RouteAuthEntry[];
  /** OTLP over gRPC, not listening until `listen` (serve starts it on config.otlpGrpcPort); closed with `http`. */
  otlpGrpc: OtlpGrpcServer;
}

export function buildServices(deps: Deps): Services {
  const metrics = new Metrics();
  const apiKeys = buildApiKeys({ db: deps.db, clock: deps.clock, hasher: deps.tokenHasher, directory: organizationDirectory(deps.db) });
  const { sessions, signIn, publicUrl, smtp } = deps.config;
  const mailer = smtp ? smtpMailer(smtp) : null;
  const { organizations, accounts } = buildOrganizations({
    db: deps.db,
    clock: deps.clock,
    keys: apiKeys,
    hasher: deps.tokenHasher,
    accounts: { sessions, signIn, publicUrl, passwords: new PasswordHasher(deps.config.passwordHashCost) },
    mailer,
    logger: deps.logger,
  });
  const readPriority = new ReadPriority(READ_PRIORITY_MAX_DELAY_MS, READ_PRIORITY_RECENT_MS);
  const privacy = buildPrivacy({ db: deps.db, clock: deps.clock, metrics, keyedHash: (label) => deps.tokenHasher.hash(label), overrides: deps.privacy });
  const traces = buildTraces({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    metrics,
    limits: deps.config.ingest,
    readPriority,
    projects: organizations,
    // Evaluations, then annotations, then topics go with deleted traces, in that order.
    extensions: [evaluationsTraceExtension(deps.db), annotationsTraceExtension(deps.db), topicsTraceExtension, privacyTraceExtension(privacy.privacy), monitorsTraceExtension(() => monitors)],
  });
  organizations.onProjectDeleted((tx, projectId) => apiKeys.deleteProjectBindings(tx, projectId));
  organizations.onProjectDeleted((tx, projectId) => privacy.privacy.deleteProject(projectId, tx));
  const annotations = buildAnnotations({ db: deps.db, clock: deps.clock, redactor: (projectId, path) => privacy.privacy.redactorFor(projectId, path) });
  const { scoreConfigs } = annotations;
  const review = buildReview({ db: deps.db, clock: deps.clock, annotations: annotations.annotations, scoreConfigs, traces, members: (organizationId) => organizationStore.listMembers(deps.db.orm, organizationId) });
  const agentCache = buildAgentCache({ db: deps.db, clock: deps.clock, keyring: loadKeyring(deps.config.encryptionKey, deps.config.dataDir) });
  // The one owner of calls to models: prompts, judges, simulations and topics call through its gateway.
  const modelProviders = buildModelProviders({
    db: deps.db,
    clock: deps.clock,
    keyring: loadKeyring(deps.config.encryptionKey, deps.config.dataDir),
    env: deps.config.providerEnv,
    fetch,
    environmentModels: () => (deps.config.providerEnv.OPENAI_API_KEY ? ENVIRONMENT_MODELS : []),
  });
  const models = modelProviders.gateway;
  const evaluations = buildEvaluators({
    db: deps.db,
    clock: deps.clock,
    metrics,
    models,
    redactor: (projectId, path) => privacy.privacy.redactorFor(projectId, path),
    traceDay: (db, projectId, traceId) => traces.traceDay(db, projectId, traceId),
  });
  const prompts = buildPrompts({
    db: deps.db,
    clock: deps.clock,
    runner: {
      complete: (scope, model, messages, signal, options) => models.complete(scope, model, messages, signal, options),
      record: (scope, spans) => traces.ingest(scope.organizationId, scope.projectId, spans, 'playground'),
    },
  });
  const { pollMs, allowPrivateDestinations } = deps.config.webhooks;
  const webhooks = buildWebhooks({ db: deps.db, clock: deps.clock, logger: deps.logger, keyring: loadKeyring(deps.config.encryptionKey, deps.config.dataDir), metrics, pollMs, allowPrivateDestinations });
  const jobs = new JobQueue(deps.db, deps.clock, metrics);
  const threads = buildThreads({ db: deps.db, clock: deps.clock, traces, evaluations });
  const monitors = buildMonitors({ db: deps.db, clock: deps.clock, settleMs: deps.config.intervals.monitorSettleMs, evaluations, review, traces, threads });
  const analytics = buildAnalytics({ db: deps.db, traces });
  const topics = buildTopics({ db: deps.db, clock: deps.clock, models, traces, analytics, projects: organizations });
  const judgeAlignmentCtx = judgeAlignmentContext({ db: deps.db, clock: deps.clock, scoreConfigs, review, traces, evaluations, projects: organizations });
  const judgeAlignment = { ctx: judgeAlignmentCtx, trust: buildJudgeAlignment(judgeAlignmentCtx) };
  const alerts = buildAlerts({
    db: deps.db,
    clock: deps.clock,
    analytics,
    monitors,
    scoreConfigs,
    judges: judgeAlignment.trust,
    publicUrl,
    mailer,
    allowPrivateDestinations,
    projects: organizations,
  });
  registerGauges(metrics, { db: deps.db, jobs, readPriority, ingest: { queue: () => traces.ingestion.ingestQueue(), load: () => traces.ingestion.ingestLoad } });
  return { organizations, accounts, apiKeys, traces, prompts, annotations, review, agentCache, evaluations, modelProviders, webhooks, monitors, threads, analytics, jobs, metrics, privacy, readPriority, alerts, topics, judgeAlignment };
}

/** The models offered from the server's environment (OPENAI_API_KEY): any openai/<model> works, these are listed. */
const ENVIRONMENT_MODELS = ['openai/gpt-4o-mini', 'openai/gpt-4o', 'openai/gpt-4.1-mini', 'openai/gpt-4.1'];

/** How long an ingest transaction waits at most for read requests in progress (PGlite). */
const READ_PRIORITY_MAX_DELAY_MS = 250;
/** Reads that ended this recently still count (docs/operating.md: Overload): the next one comes soon. */
const READ_PRIORITY_RECENT_MS = 1_000;

export async function buildApp(deps: Deps): Promise<App> {
  // pino's Logger, seen as the logger interface Fastify's own types are written against.
  const logger: FastifyBaseLogger = deps.logger;
  const http: FastifyInstance = Fastify({
    loggerInstance: logger,
    bodyLimit: 1024 * 1024,
    // Behind a reverse proxy: the client's address (sign-in limits) and scheme (Secure cookies).
    trustProxy: deps.config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Starting makes the day partitions ahead and releases PGlite's job claims (onReady hooks);
    // on a machine whose cores are busy that took more than Fastify's default 10 s and the
    // process exited. Coming up late beats not coming up; a start that hangs still fails.
    pluginTimeout: 120_000,
    // Slow clients cannot hold the server: headers, the whole request, and idle keep-alive
    // connections each have a deadline (checked every second, not Node's default 30 s).
    requestTimeout: deps.config.http.requestTimeoutMs,
    keepAliveTimeout: deps.config.http.idleTimeoutMs,
    connectionTimeout: deps.config.http.requestTimeoutMs,
    http: {
      headersTimeout: deps.config.http.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, deps.config.http.headersTimeoutMs / 2),
    },
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
    ...requestIdOptions(),
  });
  echoRequestId(http);
  installReadAfter(http, deps.db.reads);
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
    transformObject: sortedJsonSchemaTransformObject,
  });

  // Before any route: it attaches itself to each route as the route is added.
  await installCompression(http);
  const services = buildServices(deps);
  installNulGuard(http);
  const credentials: CredentialStore = {
    resolve: (token, now) => services.apiKeys.resolve(token, now),
    resolveSession: (token, now) => services.accounts.resolveSession(token, now),
    projectOrganization: (id) => services.organizations.projectOrganization(id),
  };
  const routeTable = await installAuth(http, credentials, deps.clock);
  installMetricsRoute(http, services.metrics, { open: deps.config.metricsPublic });

  // Routes outside a route group (health, metrics, the web app) answer errors in the nested
  // shape; each group (platform/http/route-group.ts) sets its own.
  http.setErrorHandler(errorHandler('nested'));
  http.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .send(renderError(new AppError(404, 'route_not_found', `no route ${request.method} ${request.url.split('?')[0]}`), 'nested'));
  });

  http.server.maxConnections = deps.config.http.maxConnections;
  installReadPriority(http, services.readPriority);
  installHealthRoutes(http, deps.db, () => services.traces.ingestion.ingestLoad);
  http.get(
    '/api/openapi.json',
    { config: { auth: { scope: 'public' } }, schema: { hide: true } },
    () => http.swagger(),
  );

  const scheduler = new Scheduler(http, deps.db, services.metrics);
  const { intervals } = deps.config;
  registerOrganizations(http, scheduler, services.organizations, services.accounts);
  registerApiKeys(http, services.apiKeys);
  registerPrompts(http, services.prompts);
  registerAnnotations(http, services.annotations);
  registerReview(http, services.review);
  registerAgentCache(http, scheduler, services.agentCache, intervals.cacheSweepMs);
  registerTraces(http, scheduler, services.traces, intervals.retentionSweepMs);
  registerPrivacy(http, services.privacy.ctx);
  registerEvaluators(http, services.evaluations);
  registerModelProviders(http, services.modelProviders);
  registerMonitors(http, services.jobs, services.monitors);
  registerThreads(http, services.threads);
  registerAnalytics(http, services.analytics);
  registerAlerts(http, scheduler, services.jobs, services.alerts.ctx, services.alerts.alerts, intervals.alertPollMs);
  const experiments = buildExperiments({
    db: deps.db,
    clock: deps.clock,
    logger,
    metrics: services.metrics,
    keyring: loadKeyring(deps.config.encryptionKey, deps.config.dataDir),
    publicUrl: deps.config.publicUrl,
    prompts: services.prompts,
    evaluations: services.evaluations,
    traces: services.traces,
    privacy: services.privacy.privacy,
  });
  registerExperiments(http, experiments);
  registerJudgeAlignment(http, services.judgeAlignment.ctx, experiments);
  registerSimulations(http, {
    db: deps.db,
    clock: deps.clock,
    privacy: services.privacy.privacy,
    models: services.modelProviders.gateway,
    experiments,
    projects: services.organizations,
    publicUrl: deps.config.publicUrl,
  });
  registerDashboards(http, { db: deps.db, clock: deps.clock, analytics: services.analytics, projects: services.organizations });
  registerTopics(http, scheduler, services.topics.ctx, services.topics.topics);
  // One process owns a PGlite database: jobs it had claimed when it last stopped (killed) are nobody's now.
  if (deps.db.kind === 'pglite') http.addHook('onReady', async () => void (await services.jobs.releaseClaims()));
  // Every process polls: jobs are claimed one by one (SKIP LOCKED), so each runs once.
  scheduler.every({ name: 'jobs', intervalMs: 2_000, once: false, run: () => services.jobs.runDue() });
  registerWebhooks(http, services.webhooks);
  registerDatasets(http, services.jobs, {
    db: deps.db,
    clock: deps.clock,
    limits: deps.config.datasets,
    traces: services.traces,
    privacy: services.privacy.privacy,
    projects: services.organizations,
    publicUrl: deps.config.publicUrl,
  });
  registerMcp(http, { routeTable, version: packageVersion() });
  await installWebApp(http, { shareShowsTrace: (token) => services.traces.shareShowsTrace(token) });

  const otlpGrpc = new OtlpGrpcServer({ ingest: services.traces.ingestion, credentials, clock: deps.clock, logger: deps.logger });
  // Before onClose, where the decode workers and the database stop: calls in progress finish first.
  http.addHook('preClose', () => otlpGrpc.close());

  await http.ready();
  return { http, services, routeTable, otlpGrpc };
}

/** How each kind of sealed value is sealed again under the keyring's first key (`spyglass keys rotate-encryption`). */
export function resealers(deps: Deps, services: Services): Resealers {
  return {
    values: () => services.agentCache.resealAll(),
    secrets: () => services.webhooks.resealSecrets(),
    providerKeys: () => services.modelProviders.resealKeys(),
    targetHeaders: () => resealTargetHeaders(deps.db, new TargetHeaders(loadKeyring(deps.config.encryptionKey, deps.config.dataDir))),
    agentHeaders: () => resealAgentHeaders(deps.db, new TargetHeaders(loadKeyring(deps.config.encryptionKey, deps.config.dataDir))),
  };
}
