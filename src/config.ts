import { z } from 'zod';
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
  SPYGLASS_DATA_DIR: z.string().min(1).default('./.spyglass'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
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
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
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
  /** Provider variables handed to evaluators (OPENAI_API_KEY, AZURE_CONTENT_SAFETY_ENDPOINT, ...). */
  providerEnv: Readonly<Record<string, string | undefined>>;
}

export class ConfigError extends Error {}

const PROVIDER_PREFIXES = ['OPENAI_', 'AZURE_', 'ANTHROPIC_', 'GOOGLE_', 'GEMINI_', 'MISTRAL_', 'GROQ_'];

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const providerEnv: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    if (PROVIDER_PREFIXES.some((p) => k.startsWith(p))) providerEnv[k] = v;
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.SPYGLASS_DATA_DIR),
    databaseUrl: e.DATABASE_URL ?? null,
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
    providerEnv,
  };
}
