import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { ProviderConfig } from './llm/call-types.ts';

export interface EvaluationScope {
  organizationId: string;
  projectId: string;
}

/** What evaluations use of a project's redaction (the privacy module). */
export interface ResultRedactor {
  readonly active: boolean;
  value<T>(value: T, field: string): T;
  take(): unknown;
}

/** Deadline and retries of one evaluation, all its provider calls included. */
export interface EvaluationLimits {
  /** Deadline of one evaluation, all its provider calls and retries included. */
  timeoutMs: number;
  /** Retries of a failed provider call (HTTP 408/429/5xx, network errors). */
  maxRetries: number;
}

/** What the judges need of the one calling models (the model-providers module's gateway). */
export interface JudgeModels {
  /** Read at each run: the gateway's own deadline and retries. */
  readonly limits: EvaluationLimits;
  /** The server environment's provider configuration (the fallback; the catalogue says what it lets run). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch: typeof fetch;
  /** The provider a model names, key opened (undefined: the environment's openai); 400 naming `field` for an unknown one. */
  providersFor(scope: EvaluationScope, model: string, field: string): Promise<ReadonlyMap<string, ProviderConfig> | undefined>;
}

/** What evaluations use of other modules, given when the module is built. */
export interface EvaluatorPorts {
  /** Model providers set in the app: judges use the one their model names, else the environment. */
  models: JudgeModels;
  /** Privacy at ingest (the privacy module): what a stored result and its events say is redacted first. */
  redactor: (projectId: string, path: string) => Promise<ResultRedactor>;
  /** The day a stored trace is kept in (the traces module), null when it is not stored: a result is kept in its trace's day. */
  traceDay: (db: Executor, projectId: string, traceId: string) => Promise<number | null>;
}

/** What the module's use cases work with (built by module.ts). */
export interface EvaluatorsContext extends EvaluatorPorts {
  db: Database;
  clock: Clock;
  metrics: Metrics;
  /** The models' limits (one object: tests shorten it). */
  limits: EvaluationLimits;
}
