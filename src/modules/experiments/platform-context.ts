import type { Executor } from '../../db/index.ts';
import type { EvaluationResult } from '../evaluators/index.ts';
import type { ScoreSummary } from '../annotations/index.ts';
import type { NormalizedSpan } from '../traces/index.ts';
import type { ExperimentsContext } from './context.ts';
import type { TargetHeaders } from './target-headers.ts';

/** Who acts: the request's project and organization, and the user of a personal key. */
export interface PlatformScope {
  organizationId: string;
  projectId: string;
  userId: string | null;
}

/** A prompt version as a target sees it. */
export interface PromptForRuns {
  id: string;
  handle: string | null;
  version: number;
  model: string;
  inputs: string[];
}

/** What running a prompt answers (the prompts module's "Try it", which records the call as a trace). */
export interface PromptRunAnswer {
  output: { content: string };
  model: string;
  cost: { amount: number } | null;
  latency_ms: number;
  trace_id: string;
}

/** A prompt version prepared for a run's cells (PlatformDeps.prompts.prepare). */
export type PreparedPrompt = (body: { variables: Record<string, unknown>; model?: string }, signal: AbortSignal) => { answer: Promise<PromptRunAnswer>; recorded: Promise<void> };

/** An evaluator of the catalogue or a custom one of the project: its path, name, data keys and (custom) version. */
export interface EvaluatorForRuns {
  path: string;
  name: string;
  dataKeys: string[];
  requiredKeys: string[];
  version: number | null;
}

/**
 * What platform runs need of other modules, wired by app.ts: prompts (read, run), evaluators
 * (find, check settings, run without storing), trace ingest, and fetch for HTTP targets.
 */
export interface PlatformDeps extends ExperimentsContext {
  prompts: {
    get(scope: PlatformScope, ref: string, select: { version?: number; tag?: string }): Promise<PromptForRuns>;
    /**
     * A version looked up once for a run's cells; each call runs it ("Try it", recording the
     * call as a trace) and says when that trace is stored (`recorded`).
     */
    prepare(scope: PlatformScope, ref: string, select: { version?: number }): Promise<PreparedPrompt>;
  };
  evaluators: {
    /**
     * The evaluator a definition names (built-in path or alias, or custom/<slug>) with its
     * settings checked and its judge's provider found (the project's, else the environment's):
     * 400 naming `evaluator` or `settings.<key>`.
     */
    describe(scope: PlatformScope, path: string, settings: unknown): Promise<EvaluatorForRuns>;
    /** Runs as the evaluate route does, without storing; what it cannot run answers a result with status error. */
    run(scope: PlatformScope, path: string, data: Record<string, unknown>, settings: Record<string, unknown>, signal: AbortSignal): Promise<EvaluationResult>;
  };
  /** Seals and opens HTTP targets' headers (the installation's keyring). */
  targetHeaders: TargetHeaders;
  record(scope: { organizationId: string; projectId: string }, spans: NormalizedSpan[]): Promise<void>;
  fetch: typeof fetch;
  /** Review scores of these traces (the annotations module), per trace id: one query for a page of rows. */
  traceScores(projectId: string, traceIds: string[]): Promise<Map<string, ScoreSummary[]>>;
  /** The server's public origin (SPYGLASS_PUBLIC_URL), else null (the request's own). */
  publicUrl: string | null;
  /** Retries of a target call that failed on the provider's side (429, 5xx, network), and the first backoff. */
  retry: { attempts: number; baseMs: number; maxRetryAfterMs: number };
}

export type { Executor };
