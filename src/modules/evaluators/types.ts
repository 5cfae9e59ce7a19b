import type { z } from 'zod';

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
  signal?: AbortSignal;
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
  isCostly: boolean;
  /** When used as a guardrail: may the guarded call proceed? Defaults to result.passed !== false. */
  evaluate(input: { data: z.output<D>; settings: z.output<S>; ctx: EvaluatorContext }): Promise<EvaluationResult>;
}
