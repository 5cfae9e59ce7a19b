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
import type { ModuleHost, SpyglassModule } from './platform/module.ts';
import { pollJobs } from './platform/jobs/poll.ts';
import type { TokenHasher } from './platform/tokens.ts';
import { smtpMailer } from './platform/mail.ts';
import { loadKeyring } from './platform/crypto.ts';
import { Scheduler } from './platform/periodic.ts';
import { installNulGuard } from './platform/nul-guard.ts';
import { JobQueue } from './platform/jobs/index.ts';
import { installWebApp } from './web-app.ts';
import { installMetricsRoute, Metrics } from './platform/metrics.ts';
import { echoRequestId, requestIdOptions } from './platform/request-id.ts';
import { installReadAfter } from './platform/http/read-after.ts';
import { installCompression } from './platform/compression.ts';
import { ReadPriority } from './platform/read-priority.ts';
import { registerGauges } from './platform/gauges.ts';
import { installHealthRoutes } from './platform/http/health.ts';
import { installReadPriority } from './platform/http/read-priority-hooks.ts';
import { apiKeysModule, buildApiKeys, type ApiKeys } from './modules/api-keys/index.ts';
import { agentCacheModule, buildAgentCache, type AgentCache } from './modules/agent-cache/index.ts';
import { alertsModule, buildAlerts } from './modules/alerts/index.ts';
import { analyticsModule, buildAnalytics, type Analytics } from './modules/analytics/index.ts';
import { annotationsModule, annotationsTraceExtension, buildAnnotations, type Annotations } from './modules/annotations/index.ts';
import { dashboardsModule } from './modules/dashboards/index.ts';
import { datasetsModule } from './modules/datasets/index.ts';
import { buildEvaluators, evaluationsTraceExtension, evaluatorsModule, type EvaluatorsContext } from './modules/evaluators/index.ts';
import { buildExperiments, experimentsModule, type Experiments } from './modules/experiments/index.ts';
import { buildJudgeAlignment, judgeAlignmentContext, judgeAlignmentModule, type JudgeAlignmentContext, type JudgeTrustPort } from './modules/judge-alignment/index.ts';
import { mcpModule } from './modules/mcp/index.ts';
import { buildModelProviders, modelProvidersModule, type ModelProviders } from './modules/model-providers/index.ts';
import { buildMonitors, liveMonitors, monitorsModule, monitorsTraceExtension, type MonitorsContext } from './modules/monitors/index.ts';
import { buildOrganizations, organizationDirectory, organizationsModule, PasswordHasher, type Accounts, type Organizations } from './modules/organizations/index.ts';
import { buildPrivacy, privacyModule, privacyTraceExtension, type PrivacyPorts } from './modules/privacy/index.ts';
import { buildPrompts, promptsModule, type Prompts } from './modules/prompts/index.ts';
import { buildReview, reviewModule, type ReviewDeps } from './modules/review/index.ts';
import { simulationsModule } from './modules/simulations/index.ts';
import { buildThreads, threadsModule, type ThreadsContext } from './modules/threads/index.ts';
import { buildTopics, topicsModule, topicsTraceExtension, type Topics, type TopicsContext } from './modules/topics/index.ts';
import { buildTraces, OtlpGrpcServer, tracesModule, type Traces } from './modules/traces/index.ts';
import { buildWebhooks, webhooksModule, type Webhooks } from './modules/webhooks/index.ts';

export interface Deps {
  config: Config;
  db: Database;
  clock: Clock;
  logger: Logger;
  tokenHasher: TokenHasher;
  /** Tests only: privacy at ingest with a detector made to fail (on the main thread), detection workers made to fail, or a smaller time budget. */
  privacy?: PrivacyPorts['overrides'];
}

/**
 * The ports modules offer each other (and the CLI, and the tests through `App.services`): one
 * typed map. `buildPorts` builds each module in order, each taking what it needs of the ports
 * built before it; a module wires its own hooks (what goes with a deleted project, its trace
 * extension), so nothing is set on a module after it is built.
 */
export interface Ports {
  /** The process's metrics, its durable job queue, and PGlite's read priority (ingest waits while reads are in progress). */
  metrics: Metrics;
  jobs: JobQueue;
  readPriority: ReadPriority;
  organizations: Organizations;
  accounts: Accounts;
  /** API keys and sessions resolved to principals (the auth layer, OTLP over gRPC). */
  credentials: CredentialStore;
  apiKeys: ApiKeys;
  /** Privacy at ingest: redaction for every ingest path. */
  privacy: ReturnType<typeof buildPrivacy>;
  traces: Traces;
  /** Annotations and score configs: the module's context, and what it offers review, judge alignment and alerts. */
  annotations: Annotations;
  /** Annotation queues (the review module): what its use cases are given. */
  review: ReviewDeps;
  agentCache: AgentCache;
  /** The one owner of calls to models: prompts, judges, simulations and topics call through its gateway. */
  modelProviders: ModelProviders;
  /** Evaluators (the module's context; its limits are the model gateway's). */
  evaluations: EvaluatorsContext;
  prompts: Prompts;
  webhooks: Webhooks;
  /** Threads evaluated as a whole, and listed (the threads module's context). */
  threads: ThreadsContext;
  /** Monitors (the module's context). */
  monitors: MonitorsContext;
  analytics: Analytics;
  /** Topics: traces' inputs embedded and clustered. */
  topics: { ctx: TopicsContext; topics: Topics };
  /** Judges measured against people: the module's context, and whether a judge can be trusted. */
  judgeAlignment: { ctx: JudgeAlignmentContext; trust: JudgeTrustPort };
  /** Alert rules evaluated window by window. */
  alerts: ReturnType<typeof buildAlerts>;
  /** Experiments' platform runs (their runner and queue) and judge runs. */
  experiments: Experiments;
}

export interface App {
  http: FastifyInstance;
  /** The ports map (`buildPorts`). */
  services: Ports;
  /** Every route with the permission it needs (the auth test matrix reads it). */
  routeTable: RouteAuthEntry[];
  /** OTLP over gRPC, not listening until `listen` (serve starts it on config.otlpGrpcPort); closed with `http`. */
  otlpGrpc: OtlpGrpcServer;
}

export function buildPorts(deps: Deps): Ports {
  const { db, clock, logger, config } = deps;
  const { sessions, signIn, publicUrl, smtp } = config;
  const { pollMs, allowPrivateDestinations } = config.webhooks;
  const mailer = smtp ? smtpMailer(smtp) : null;
  const keyring = loadKeyring(config.encryptionKey, config.dataDir);
  const metrics = new Metrics();
  const jobs = new JobQueue(db, clock, metrics);
  const readPriority = new ReadPriority(READ_PRIORITY_MAX_DELAY_MS, READ_PRIORITY_RECENT_MS);
  const apiKeys = buildApiKeys({ db, clock, hasher: deps.tokenHasher, directory: organizationDirectory(db) });
  const passwords = new PasswordHasher(config.passwordHashCost);
  const { organizations, accounts, credentials } = buildOrganizations({ db, clock, keys: apiKeys, hasher: deps.tokenHasher, accounts: { sessions, signIn, publicUrl, passwords }, mailer, logger });
  const projects = organizations;
  const privacy = buildPrivacy({ db, clock, metrics, logger, hasher: deps.tokenHasher, projects, detectionThreads: config.privacy.detectionThreads, detectionIdleMs: config.privacy.detectionIdleMs, overrides: deps.privacy });
  const live = liveMonitors(config.intervals.monitorSettleMs);
  const traces = buildTraces({
    db,
    clock,
    logger,
    metrics,
    limits: config.ingest,
    readPriority,
    projects,
    // Each module's own extension. Evaluations, then annotations, then topics go with deleted traces, in that order.
    extensions: [evaluationsTraceExtension(db), annotationsTraceExtension(db), topicsTraceExtension, privacyTraceExtension(privacy.privacy), monitorsTraceExtension(live)],
  });
  const annotations = buildAnnotations({ db, clock, privacy: privacy.privacy });
  const { scoreConfigs } = annotations;
  const review = buildReview({ db, clock, annotations: annotations.annotations, scoreConfigs, traces, organizations });
  const agentCache = buildAgentCache({ db, clock, keyring });
  const modelProviders = buildModelProviders({ db, clock, keyring, env: config.providerEnv, fetch, environmentModels: () => (config.providerEnv.OPENAI_API_KEY ? ENVIRONMENT_MODELS : []) });
  const models = modelProviders.gateway;
  const evaluations = buildEvaluators({ db, clock, metrics, models, privacy: privacy.privacy, traces });
  const prompts = buildPrompts({ db, clock, models, traces });
  const webhooks = buildWebhooks({ db, clock, logger, keyring, metrics, pollMs, allowPrivateDestinations });
  const threads = buildThreads({ db, clock, traces, evaluations });
  const monitors = buildMonitors({ db, clock, live, evaluations, review, traces, threads });
  const analytics = buildAnalytics({ db, traces });
  const topics = buildTopics({ db, clock, models, traces, analytics, projects });
  const judgeAlignmentCtx = judgeAlignmentContext({ db, clock, scoreConfigs, review, traces, evaluations, projects });
  const judgeAlignment = { ctx: judgeAlignmentCtx, trust: buildJudgeAlignment(judgeAlignmentCtx) };
  const alerts = buildAlerts({ db, clock, analytics, monitors, scoreConfigs, judges: judgeAlignment.trust, publicUrl, mailer, allowPrivateDestinations, projects });
  const experiments = buildExperiments({ db, clock, logger, metrics, keyring, publicUrl, prompts, evaluations, traces, privacy: privacy.privacy });
  registerGauges(metrics, { db, jobs, readPriority, ingest: traces.ingestion });
  return { metrics, jobs, readPriority, organizations, accounts, credentials, apiKeys, privacy, traces, annotations, review, agentCache, modelProviders, evaluations, prompts, webhooks, threads, monitors, analytics, topics, judgeAlignment, alerts, experiments };
}

/** The models offered from the server's environment (OPENAI_API_KEY): any openai/<model> works, these are listed. */
const ENVIRONMENT_MODELS = ['openai/gpt-4o-mini', 'openai/gpt-4o', 'openai/gpt-4.1-mini', 'openai/gpt-4.1'];

/** How long an ingest transaction waits at most for read requests in progress (PGlite). */
const READ_PRIORITY_MAX_DELAY_MS = 250;
/** Reads that ended this recently still count (docs/operating.md: Overload): the next one comes soon. */
const READ_PRIORITY_RECENT_MS = 1_000;

/**
 * Every module's one entry, in the order they register (each registers its routes, job queues
 * and schedules over the ports map). Typed over the whole map: a module that reads a port the
 * map does not offer fails to compile; test/foundation/house-shape.test.ts fails when a folder
 * of src/modules is missing here.
 */
export const MODULES: readonly SpyglassModule<Ports>[] = [
  organizationsModule,
  apiKeysModule,
  promptsModule,
  annotationsModule,
  reviewModule,
  agentCacheModule,
  tracesModule,
  privacyModule,
  evaluatorsModule,
  modelProvidersModule,
  monitorsModule,
  threadsModule,
  analyticsModule,
  alertsModule,
  experimentsModule,
  judgeAlignmentModule,
  simulationsModule,
  dashboardsModule,
  topicsModule,
  webhooksModule,
  datasetsModule,
  mcpModule,
];

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
  const ports = buildPorts(deps);
  installNulGuard(http);
  const routeTable = await installAuth(http, ports.credentials, deps.clock);
  installMetricsRoute(http, ports.metrics, { open: deps.config.metricsPublic });

  // Routes outside a route group (health, metrics, the web app) answer errors in the nested
  // shape; each group (platform/http/route-group.ts) sets its own.
  http.setErrorHandler(errorHandler('nested'));
  http.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .send(renderError(new AppError(404, 'route_not_found', `no route ${request.method} ${request.url.split('?')[0]}`), 'nested'));
  });

  http.server.maxConnections = deps.config.http.maxConnections;
  installReadPriority(http, ports.readPriority);
  installHealthRoutes(http, deps.db, ports.traces.ingestion);
  http.get(
    '/api/openapi.json',
    { config: { auth: { scope: 'public' } }, schema: { hide: true } },
    () => http.swagger(),
  );

  const host: ModuleHost = { http, scheduler: new Scheduler(http, deps.db, ports.metrics), jobs: ports.jobs, db: deps.db, clock: deps.clock, logger: deps.logger, config: deps.config, routeTable };
  for (const module of MODULES) module.register(host, ports);
  pollJobs(host);
  await installWebApp(http, ports.traces);

  const otlpGrpc = new OtlpGrpcServer({ ingest: ports.traces.ingestion, credentials: ports.credentials, clock: deps.clock, logger: deps.logger });
  // Before onClose, where the decode workers and the database stop: calls in progress finish first.
  http.addHook('preClose', () => otlpGrpc.close());

  await http.ready();
  return { http, services: ports, routeTable, otlpGrpc };
}
