import { z } from 'zod';
import os from 'node:os';
import path from 'node:path';
import { parseKeySpecs } from './platform/crypto.ts';

/**
 * Everything Spyglass reads from the environment, validated once at start.
 * No other file reads process.env.
 */
const optionalString = z.string().trim().min(1).optional().catch(undefined);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(5560),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** OTLP over gRPC listens on this port of HOST; 0 or `off`: not at all. */
  SPYGLASS_OTLP_GRPC_PORT: z
    .union([z.literal('off'), z.coerce.number().int().min(0).max(65535)], { error: 'must be a port number (0-65535) or off' })
    .default(4317),
  SPYGLASS_DATA_DIR: z.string().min(1).default('./.spyglass'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  /** Streaming replicas of DATABASE_URL that take reads: postgres:// URLs, comma-separated. */
  DATABASE_READ_URL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v.split(',').map((u) => u.trim()).filter(Boolean) : []))
    .refine((urls) => urls.every((u) => /^postgres(ql)?:\/\//.test(u)), 'each URL must start with postgres:// or postgresql://'),
  /** A replica further behind the primary than this many milliseconds takes no reads until it catches up. */
  SPYGLASS_READ_MAX_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Key for the keyed hash of API tokens; when unset, a key file in the data directory. */
  SPYGLASS_TOKEN_HASH_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Master keys of encryption at rest: `key` or `kid:key` (base64, >= 32 bytes), comma-separated, the first encrypts; unset: a key file. */
  SPYGLASS_ENCRYPTION_KEY: z
    .string()
    .trim()
    .min(1)
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      try {
        parseKeySpecs(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
  SPYGLASS_INIT_ORG_NAME: optionalString,
  SPYGLASS_INIT_PROJECT_NAME: optionalString,
  SPYGLASS_INIT_PROJECT_API_KEY: optionalString,
  SPYGLASS_INIT_ADMIN_API_KEY: optionalString,
  SPYGLASS_INIT_USER_EMAIL: z.string().email().optional(),
  SPYGLASS_INIT_USER_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  /** Seconds to let in-flight requests finish on SIGTERM before closing anyway. */
  SPYGLASS_SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(600).default(25),
  /** 1: webhook endpoints may point at loopback, private, link-local and metadata addresses (development only). */
  SPYGLASS_WEBHOOK_ALLOW_PRIVATE: z.enum(['0', '1', 'true', 'false']).default('0'),
  /** How often this process's webhook dispatcher looks for work, in ms; 0: this process does not dispatch. */
  SPYGLASS_WEBHOOK_POLL_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  /** Where people reach this server (links in invitations and password resets); unset: the request's own origin. */
  SPYGLASS_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** 1: behind a reverse proxy; X-Forwarded-For and X-Forwarded-Proto give the client's address and scheme. */
  SPYGLASS_TRUST_PROXY: z.enum(['0', '1', 'true', 'false']).default('0'),
  /** A browser session ends after this many hours without a request... */
  SPYGLASS_SESSION_IDLE_HOURS: z.coerce.number().positive().max(24 * 365).default(24 * 7),
  /** ...and this many hours after signing in, whatever happens. */
  SPYGLASS_SESSION_MAX_HOURS: z.coerce.number().positive().max(24 * 365).default(24 * 30),
  /** log2 of scrypt's N for password hashes: 17 (128 MiB, ~0.5 s) unless a test suite needs cheap ones. */
  SPYGLASS_PASSWORD_HASH_COST: z.coerce.number().int().min(10, 'must be at least 10').max(20).default(17),
  /** Sign-in attempts per account (e-mail) in one window; a successful sign-in clears the account's count. */
  SPYGLASS_SIGNIN_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(10),
  /** Sign-in attempts per client address in one window. */
  SPYGLASS_SIGNIN_MAX_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(50),
  SPYGLASS_SIGNIN_WINDOW_MINUTES: z.coerce.number().positive().max(24 * 60).default(15),
  /** smtp://user:pass@host:587 or smtps://...: invitation and password-reset links are also mailed. */
  SMTP_URL: z
    .url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' })
    .optional(),
  /** How often expired agent-cache entries are deleted (one process per period does it). */
  SPYGLASS_CACHE_SWEEP_SECONDS: z.coerce.number().min(1).max(86_400).default(60),
  /** How often traces past their project's retention are deleted (one process per period does it). */
  SPYGLASS_RETENTION_SWEEP_SECONDS: z.coerce.number().min(1).max(86_400).default(600),
  /** How long a trace must be quiet before monitors evaluate it (later spans push it back). */
  SPYGLASS_MONITOR_SETTLE_SECONDS: z.coerce.number().min(0).max(3_600).default(30),
  /** How often this process evaluates due alert rules (and sends due reports: four times as long); 0: it does not. */
  SPYGLASS_ALERT_POLL_SECONDS: z.coerce.number().min(0).max(3_600).default(15),
  /** How often this process looks for due queued jobs (monitors, imports, backfills, alert deliveries), in ms; 0: it runs none. */
  SPYGLASS_JOB_POLL_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  /** 1: GET /metrics answers without credentials (a scraper on a private network); else it needs metrics:view. */
  SPYGLASS_METRICS_PUBLIC: z.enum(['0', '1', 'true', 'false']).default('0'),
  SMTP_FROM: z.string().trim().min(3).default('Spyglass <spyglass@localhost>'),
  /** Spans admitted and not yet committed, for the whole process: past it ingest answers 503 with Retry-After. */
  SPYGLASS_INGEST_QUEUE_SPANS: z.coerce.number().int().min(1).max(10_000_000).default(20_000),
  /** The same bound per project, so one noisy project cannot starve the others. */
  SPYGLASS_INGEST_PROJECT_QUEUE_SPANS: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  /**
   * Decompressed bytes of OTLP request bodies in flight (from before their decompression until
   * they are answered), for the whole process: past it ingest answers 503 with Retry-After
   * before inflating another. A body larger than it is admitted only when no other is in flight.
   * 64 MiB, the decompressed limit of one body: 16 gzip bodies of 60 MB at once, PGlite, peak
   * RSS 416 MiB against 603 at 128 MiB (two giant bodies in flight) and 1,162 before the budget
   * (bench/overload.ts flood, one sitting, load 14-22); 64 requests of 1,000 spans (~0.3 MB
   * each) take 20 MB of it.
   */
  SPYGLASS_INGEST_QUEUE_BYTES: z.coerce.number().int().min(1024 * 1024).max(64 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  /**
   * One attribute value (and a span's input, output, params, ...) larger than this many bytes
   * keeps its first part; the span lists what was cut in its spyglass.truncated attribute.
   */
  SPYGLASS_MAX_ATTRIBUTE_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  /** Ingest requests per second per API key; past it 429 with Retry-After. 0: no limit (the default). */
  SPYGLASS_INGEST_RATE_LIMIT: z.coerce.number().min(0).max(1_000_000).default(0),
  /**
   * An OTLP decode worker that has not answered a request within this many seconds of starting
   * it counts as hung: it is terminated and its requests answer 503. 30 (a reasoned figure, not
   * a measured one): the longest legitimate job, a body at the 64 MiB decompressed limit, may
   * take seconds, more when the worker, at nice 10, gets only a share of a core on a busy
   * 2-core machine; while a worker hangs, all OTLP ingest waits, so not minutes either.
   */
  SPYGLASS_INGEST_DECODE_TIMEOUT_SECONDS: z.coerce.number().min(0.001).max(3600).default(30),
  /** A client must send a request's headers within this many seconds... */
  SPYGLASS_HEADERS_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(600).default(10),
  /** ...and the whole request (headers and body) within this many. */
  SPYGLASS_REQUEST_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(3600).default(60),
  /** An idle keep-alive connection is closed after this many seconds. */
  SPYGLASS_IDLE_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(3600).default(5),
  /** Open connections at most; further ones are closed at once. */
  SPYGLASS_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  /** A dataset upload's file: at most this many bytes (413 beyond; the spec's 25 MiB)... */
  SPYGLASS_DATASET_UPLOAD_MAX_BYTES: z.coerce.number().int().min(1024).max(4 * 1024 * 1024 * 1024).default(25 * 1024 * 1024),
  /** ...and at most this many data rows (400 beyond; the spec's 10,000). */
  SPYGLASS_DATASET_UPLOAD_MAX_ROWS: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  /**
   * Worker threads that search ingested texts for personal data (privacy at ingest), started
   * when a project first has privacy on; unset: one per core (os.availableParallelism()). 0:
   * detection runs on the main thread, as a test's injected detector does.
   */
  SPYGLASS_PRIVACY_DETECTION_THREADS: z.coerce.number().int().min(0).max(256).optional(),
  /** Detection workers with nothing to do for this long are stopped (the next text starts them again). */
  SPYGLASS_PRIVACY_DETECTION_IDLE_SECONDS: z.coerce.number().min(0.1).max(7 * 24 * 3600).default(300),
});

export interface Config {
  port: number;
  host: string;
  /** The OTLP/gRPC port; null: no gRPC server. */
  otlpGrpcPort: number | null;
  dataDir: string;
  databaseUrl: string | null;
  /** Streaming replicas that take reads (empty: every read goes to the primary). */
  readReplicas: { urls: string[]; maxLagMs: number };
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  tokenHashKey: string | null;
  /** SPYGLASS_ENCRYPTION_KEY as given (validated); null: `<dataDir>/encryption.key`. */
  encryptionKey: string | null;
  init: {
    orgName: string | null;
    projectName: string | null;
    projectApiKey: string | null;
    adminApiKey: string | null;
    userEmail: string | null;
    userPassword: string | null;
  };
  shutdownGraceMs: number;
  webhooks: {
    allowPrivateDestinations: boolean;
    /** 0: no background dispatcher in this process. */
    pollMs: number;
  };
  /** SPYGLASS_PUBLIC_URL without a trailing slash; null: links use the request's origin. */
  publicUrl: string | null;
  trustProxy: boolean;
  intervals: { cacheSweepMs: number; retentionSweepMs: number; monitorSettleMs: number; alertPollMs: number; jobPollMs: number };
  /** GET /metrics without credentials. */
  metricsPublic: boolean;
  sessions: { idleMs: number; maxAgeMs: number };
  signIn: { maxPerAccount: number; maxPerAddress: number; windowMs: number };
  /** log2 of scrypt's N for new password hashes. */
  passwordHashCost: number;
  /** null: no mail is sent (links are only shown to whoever asked for them). */
  smtp: { url: string; from: string } | null;
  /** Ingest admission: bounded queues (503) and an optional per-key rate (429). */
  ingest: { queueSpans: number; projectQueueSpans: number; queueBytes: number; maxAttributeBytes: number; ratePerSecond: number; decodeTimeoutMs: number };
  /** Slow clients cannot hold the server. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; idleTimeoutMs: number; maxConnections: number };
  /** Dataset file uploads (docs/datasets.md). */
  datasets: { uploadMaxBytes: number; uploadMaxRows: number };
  /** Privacy at ingest: worker threads of detection (0: the main thread detects), stopped after idleMs without work. */
  privacy: { detectionThreads: number; detectionIdleMs: number };
  /** Provider variables handed to evaluators (OPENAI_API_KEY, AZURE_CONTENT_SAFETY_ENDPOINT, ...). */
  providerEnv: Readonly<Record<string, string | undefined>>;
}

const HOUR = 3_600_000;

export class ConfigError extends Error {}

const PROVIDER_PREFIXES = ['OPENAI_', 'AZURE_', 'ANTHROPIC_', 'GOOGLE_', 'GEMINI_', 'MISTRAL_', 'GROQ_'];

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.DATABASE_READ_URL.length && !e.DATABASE_URL) {
    throw new ConfigError('invalid configuration:\n  DATABASE_READ_URL: read replicas need a PostgreSQL primary (DATABASE_URL); the embedded database (PGlite) has none');
  }
  const providerEnv: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    if (PROVIDER_PREFIXES.some((p) => k.startsWith(p))) providerEnv[k] = v;
  }
  return {
    port: e.PORT,
    host: e.HOST,
    otlpGrpcPort: e.SPYGLASS_OTLP_GRPC_PORT === 'off' || e.SPYGLASS_OTLP_GRPC_PORT === 0 ? null : e.SPYGLASS_OTLP_GRPC_PORT,
    dataDir: path.resolve(e.SPYGLASS_DATA_DIR),
    databaseUrl: e.DATABASE_URL ?? null,
    readReplicas: { urls: e.DATABASE_READ_URL, maxLagMs: e.SPYGLASS_READ_MAX_LAG_MS },
    logLevel: e.LOG_LEVEL,
    tokenHashKey: e.SPYGLASS_TOKEN_HASH_KEY ?? null,
    encryptionKey: e.SPYGLASS_ENCRYPTION_KEY ?? null,
    init: {
      orgName: e.SPYGLASS_INIT_ORG_NAME ?? null,
      projectName: e.SPYGLASS_INIT_PROJECT_NAME ?? null,
      projectApiKey: e.SPYGLASS_INIT_PROJECT_API_KEY ?? null,
      adminApiKey: e.SPYGLASS_INIT_ADMIN_API_KEY ?? null,
      userEmail: e.SPYGLASS_INIT_USER_EMAIL ?? null,
      userPassword: e.SPYGLASS_INIT_USER_PASSWORD ?? null,
    },
    shutdownGraceMs: e.SPYGLASS_SHUTDOWN_GRACE_SECONDS * 1000,
    webhooks: {
      allowPrivateDestinations: e.SPYGLASS_WEBHOOK_ALLOW_PRIVATE === '1' || e.SPYGLASS_WEBHOOK_ALLOW_PRIVATE === 'true',
      pollMs: e.SPYGLASS_WEBHOOK_POLL_MS,
    },
    publicUrl: e.SPYGLASS_PUBLIC_URL ?? null,
    trustProxy: e.SPYGLASS_TRUST_PROXY === '1' || e.SPYGLASS_TRUST_PROXY === 'true',
    intervals: {
      cacheSweepMs: e.SPYGLASS_CACHE_SWEEP_SECONDS * 1000,
      retentionSweepMs: e.SPYGLASS_RETENTION_SWEEP_SECONDS * 1000,
      monitorSettleMs: e.SPYGLASS_MONITOR_SETTLE_SECONDS * 1000,
      alertPollMs: e.SPYGLASS_ALERT_POLL_SECONDS * 1000,
      jobPollMs: e.SPYGLASS_JOB_POLL_MS,
    },
    metricsPublic: e.SPYGLASS_METRICS_PUBLIC === '1' || e.SPYGLASS_METRICS_PUBLIC === 'true',
    sessions: { idleMs: e.SPYGLASS_SESSION_IDLE_HOURS * HOUR, maxAgeMs: e.SPYGLASS_SESSION_MAX_HOURS * HOUR },
    signIn: {
      maxPerAccount: e.SPYGLASS_SIGNIN_MAX_PER_ACCOUNT,
      maxPerAddress: e.SPYGLASS_SIGNIN_MAX_PER_ADDRESS,
      windowMs: e.SPYGLASS_SIGNIN_WINDOW_MINUTES * 60_000,
    },
    passwordHashCost: e.SPYGLASS_PASSWORD_HASH_COST,
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM } : null,
    ingest: {
      queueSpans: e.SPYGLASS_INGEST_QUEUE_SPANS,
      projectQueueSpans: Math.min(e.SPYGLASS_INGEST_PROJECT_QUEUE_SPANS, e.SPYGLASS_INGEST_QUEUE_SPANS),
      queueBytes: e.SPYGLASS_INGEST_QUEUE_BYTES,
      maxAttributeBytes: e.SPYGLASS_MAX_ATTRIBUTE_BYTES,
      ratePerSecond: e.SPYGLASS_INGEST_RATE_LIMIT,
      decodeTimeoutMs: e.SPYGLASS_INGEST_DECODE_TIMEOUT_SECONDS * 1000,
    },
    http: {
      headersTimeoutMs: e.SPYGLASS_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: Math.max(e.SPYGLASS_REQUEST_TIMEOUT_SECONDS, e.SPYGLASS_HEADERS_TIMEOUT_SECONDS) * 1000,
      idleTimeoutMs: e.SPYGLASS_IDLE_TIMEOUT_SECONDS * 1000,
      maxConnections: e.SPYGLASS_MAX_CONNECTIONS,
    },
    datasets: { uploadMaxBytes: e.SPYGLASS_DATASET_UPLOAD_MAX_BYTES, uploadMaxRows: e.SPYGLASS_DATASET_UPLOAD_MAX_ROWS },
    privacy: { detectionThreads: e.SPYGLASS_PRIVACY_DETECTION_THREADS ?? os.availableParallelism(), detectionIdleMs: e.SPYGLASS_PRIVACY_DETECTION_IDLE_SECONDS * 1000 },
    providerEnv,
  };
}
