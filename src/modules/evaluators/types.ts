import type { z } from 'zod';
import type { ProviderConfig } from './llm/call-types.ts';

/** One result of the spec's "Evaluation request and result" table. */
export interface EvaluationResult {
  status: 'processed' | 'skipped' | 'error';
  score?: number;
  passed?: boolean;
  label?: string;
  details?: string;
  cost?: { currency: string; amount: number };
  raw_response?: Record<string, unknown>;
  error_type?: string;
  traceback?: string[];
}

/** What the runner hands an evaluator besides its data and settings. */
export interface EvaluatorContext {
  /** Provider configuration read from the environment by config.ts (OPENAI_API_KEY, ...). */
  env: Readonly<Record<string, string | undefined>>;
  fetch: typeof fetch;
  now: () => Date;
  /** Aborted when the evaluation's deadline passes (the runner then reports a Timeout). */
  signal?: AbortSignal;
  /** Retries of a failed provider call (HTTP 429/5xx, network); the provider SDK's default when unset. */
  maxRetries?: number;
  /** Model providers set in the app, by name (the provider part of settings.model), keys opened. */
  providers?: ReadonlyMap<string, ProviderConfig>;
}

/**
 * An evaluator declares its data fields and settings as zod schemas (with defaults),
 * the environment variables it needs, and whether a run costs money.
 */
export interface EvaluatorDefinition<
  D extends z.ZodType = z.ZodType,
  S extends z.ZodType = z.ZodType,
> {
  /** e.g. "rag/context_recall" — the {evaluator_path} of the route. */
  path: string;
  name: string;
  description: string;
  category: 'rag' | 'pii' | 'safety' | 'policy' | 'quality' | 'custom';
  data: D;
  settings: S;
  requiredEnv: string[];
  /**
   * Variables needed for these settings on top of `requiredEnv`, e.g. the provider key of
   * `settings.model`. The runner checks them before `evaluate` and answers a
   * MissingConfiguration error result naming the first one missing.
   */
  requiredEnvFor?(settings: z.output<S>): string[];
  isCostly: boolean;
  /** An LLM judge: it calls the model provider of settings.model. */
  usesLlm?: boolean;
  /** The outside service it calls, other than an LLM provider (e.g. Azure AI Content Safety). */
  externalService?: string;
  /**
   * Why this server cannot run it at all (a vendor or model it has no client for): the
   * catalogue marks it unavailable with this reason, and every run answers an error.
   */
  notOffered?: string;
  /** Meant to run before or after an LLM call to block it: it always sets `passed`. */
  isGuardrail?: boolean;
  /** When used as a guardrail: may the guarded call proceed? Defaults to result.passed !== false. */
  evaluate(input: { data: z.output<D>; settings: z.output<S>; ctx: EvaluatorContext }): Promise<EvaluationResult>;
}
