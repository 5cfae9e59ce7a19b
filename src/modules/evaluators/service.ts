import { performance } from 'node:perf_hooks';
import type { SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, badRequest, notFound } from '../../platform/errors.ts';
import { emitEvent, type EventType } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { Metrics } from '../../platform/metrics.ts';
import { catalogueFor, findEvaluator, type CatalogueAvailability } from './catalogue.ts';
import { parseInput, parseSettings, runEvaluator } from './runner.ts';
import type { EvaluateBody, TraceEvaluation } from './schemas.ts';
import * as store from './store.ts';
import { EvaluatorError, MissingConfigurationError } from './errors.ts';
import { completeChat, resolveChatModel, type ChatCompletion } from './llm/provider.ts';
import type { EvaluationResult, EvaluatorDefinition } from './types.ts';

export interface EvaluationLimits {
  /** Deadline of one evaluation, all its provider calls and retries included. */
  timeoutMs: number;
  /** Retries of a failed provider call (HTTP 408/429/5xx, network errors). */
  maxRetries: number;
}

export const DEFAULT_LIMITS: EvaluationLimits = { timeoutMs: 120_000, maxRetries: 2 };

export interface EvaluationScope {
  organizationId: string;
  projectId: string;
}

export type AnsweredResult = EvaluationResult & { evaluation_id?: string };

export interface EvaluationOutcome {
  results: AnsweredResult[];
  /** as_guardrail only: may the guarded call proceed (no result has passed === false)? */
  guardrailPassed: boolean | null;
}

const MAX_EVENT_DETAILS = 1000;

export class EvaluationService {
  readonly limits: EvaluationLimits;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly env: Readonly<Record<string, string | undefined>>,
    limits: Partial<EvaluationLimits> = {},
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly metrics: Metrics = new Metrics(),
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Every evaluator, with whether this server's environment lets it run (and why not). */
  catalogue(): CatalogueAvailability[] {
    return catalogueFor(this.env);
  }

  /** An evaluator path and settings to save for later runs (monitors): 400 naming `evaluator` or `settings.<key>`. */
  checkSettings(path: string, settings: unknown): void {
    const definition = findEvaluator(path);
    if (!definition) throw badRequest('unknown_evaluator', `no evaluator ${path}; GET /api/evaluations lists them`, 'evaluator');
    parseSettings(definition, settings);
  }

  evaluator(path: string): EvaluatorDefinition {
    const definition = findEvaluator(path);
    if (!definition) {
      throw notFound('evaluator_not_found', `no evaluator ${path}; GET /api/evaluations lists the available ones`);
    }
    return definition;
  }

  /**
   * Runs one evaluator (400 for bad data or settings, 404 for an unknown path). With a
   * trace_id the result is stored on that trace; either way its webhook events are written,
   * in the same transaction as the stored result.
   */
  async evaluate(scope: EvaluationScope, path: string, body: EvaluateBody, signal?: AbortSignal, origin: { monitorId?: string } = {}): Promise<EvaluationOutcome> {
    const definition = this.evaluator(path);
    const input = parseInput(definition, body.data, body.settings);
    const started = performance.now();
    let result: AnsweredResult;
    try {
      result = await runEvaluator(definition, input, {
        env: this.env,
        fetch: this.fetchImpl,
        now: () => this.clock.now(),
        timeoutMs: this.limits.timeoutMs,
        maxRetries: this.limits.maxRetries,
        signal,
      });
    } catch (err) {
      this.metrics.evaluatorRun(definition.path, 'error', (performance.now() - started) / 1000, err instanceof Error ? err.name : 'Error');
      throw err;
    }
    this.metrics.evaluatorRun(definition.path, result.status, (performance.now() - started) / 1000, result.error_type ?? undefined);

    // Nobody is waiting for this answer: store nothing the client was not told about.
    if (signal?.aborted) throw new AppError(499, 'client_closed_request', 'the client closed the connection before the evaluation finished');

    const asGuardrail = body.as_guardrail === true;
    if (asGuardrail) {
      // Fail-open, as LangWatch's guardrails: only a verdict against the content blocks the
      // call; a skipped or failed evaluation, or one without a verdict, lets it proceed.
      result = { ...result, passed: result.passed !== false };
    }

    const now = this.clock.now();
    const name = body.name ?? definition.name;
    const traceId = body.trace_id ?? null;
    await this.db.orm.transaction(async (tx) => {
      if (traceId) {
        const row = await store.insertEvaluation(tx, {
          id: newId('eval'),
          projectId: scope.projectId,
          traceId,
          evaluator: definition.path,
          name,
          status: result.status,
          score: result.score ?? null,
          passed: result.passed ?? null,
          label: result.label ?? null,
          details: result.details ?? null,
          costAmount: result.cost?.amount ?? null,
          costCurrency: result.cost?.currency ?? null,
          settings: input.settings as Record<string, unknown>,
          isGuardrail: asGuardrail,
          errorType: result.status === 'error' ? (result.error_type ?? 'Error') : null,
          errorMessage: result.status === 'error' ? (result.details ?? '') : null,
          errorStacktrace: result.status === 'error' ? (result.traceback ?? []) : null,
          insertedAt: now.getTime(),
          updatedAt: now.getTime(),
          monitorId: origin.monitorId ?? null,
        });
        result = { ...result, evaluation_id: row.id };
      }
      await this.emitEvents(tx, scope, { result, path: definition.path, name, traceId, asGuardrail }, now);
    });

    return { results: [result], guardrailPassed: asGuardrail ? result.passed !== false : null };
  }

  private async emitEvents(
    tx: Executor,
    scope: EvaluationScope,
    e: { result: AnsweredResult; path: string; name: string; traceId: string | null; asGuardrail: boolean },
    now: Date,
  ): Promise<void> {
    const { result } = e;
    const data = {
      evaluation_id: result.evaluation_id ?? null,
      trace_id: e.traceId,
      type: e.path,
      name: e.name,
      status: result.status,
      score: result.score ?? null,
      passed: result.passed ?? null,
      label: result.label ?? null,
      details: result.details ? truncate(result.details, MAX_EVENT_DETAILS) : null,
      cost: result.cost ?? null,
      error_type: result.error_type ?? null,
      as_guardrail: e.asGuardrail,
    };
    const base = { organizationId: scope.organizationId, projectId: scope.projectId };
    const type: EventType = result.status === 'error' ? 'evaluation.failed' : 'evaluation.completed';
    await emitEvent(tx, { ...base, type, data }, now);
    if (e.asGuardrail && result.passed === false) {
      await emitEvent(tx, { ...base, type: 'guardrail.triggered', data }, now);
    }
  }

  /**
   * One chat completion with the judges' provider configuration, retries, deadline and price
   * table (a prompt's "Try it"). `model` is `provider/model` or a bare OpenAI model id.
   * Failures are HTTP errors here: 400 naming `model`, 503 when the provider is not
   * configured (naming the variable), 502 for the provider's errors, 504 past the deadline.
   */
  async complete(
    model: string,
    messages: { role: 'system' | 'user' | 'assistant'; content: string }[],
    signal?: AbortSignal,
    jsonSchema?: { name: string; schema: Record<string, unknown> },
  ): Promise<ChatCompletion & { provider: string }> {
    const resolved = resolveChatModel(model);
    if (!resolved) throw badRequest('unsupported_model', `model: ${model} is not supported; use openai/<model> (any OpenAI-compatible server through OPENAI_BASE_URL)`, 'model');
    const deadline = AbortSignal.timeout(this.limits.timeoutMs);
    try {
      const answer = await completeChat(resolved, messages, {
        env: this.env,
        fetch: this.fetchImpl,
        now: () => this.clock.now(),
        maxRetries: this.limits.maxRetries,
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      }, jsonSchema);
      return { ...answer, provider: resolved.provider };
    } catch (err) {
      if (err instanceof MissingConfigurationError) {
        throw new AppError(503, 'provider_not_configured', err.message, { meta: { variable: err.variable } });
      }
      if (deadline.aborted) throw new AppError(504, 'provider_timeout', `the model provider did not answer within ${this.limits.timeoutMs / 1000} s (retries included)`);
      if (err instanceof EvaluatorError) throw new AppError(502, err.type === 'ProviderError' ? 'provider_error' : 'invalid_provider_response', err.message);
      throw err;
    }
  }

  async listTraceEvaluations(projectId: string, traceId: string): Promise<TraceEvaluation[]> {
    return listTraceEvaluations(this.db, projectId, traceId);
  }
}

/** The spec's "Trace evaluation" objects of one trace, oldest first (the traces module reads them). */
export async function listTraceEvaluations(db: Database | Executor, projectId: string, traceId: string): Promise<TraceEvaluation[]> {
  const executor = 'orm' in db ? db.orm : db;
  const rows = await store.listByTrace(executor, projectId, traceId);
  return rows.map(toTraceEvaluation);
}

/** The results a monitor produced, newest first, a keyset page at a time (`cursor` from the previous page). */
export async function monitorResults(
  db: Database,
  projectId: string,
  monitorId: string,
  page: { pageSize: number; cursor?: string; outcome?: store.Outcome },
): Promise<{ data: MonitorResult[]; next_cursor: string | null }> {
  let after: { insertedAt: number; id: string } | null = null;
  if (page.cursor) {
    try {
      const c = JSON.parse(Buffer.from(page.cursor, 'base64url').toString('utf8')) as { t: unknown; i: unknown };
      if (typeof c.t === 'number' && typeof c.i === 'string') after = { insertedAt: c.t, id: c.i };
    } catch {
      /* answered below */
    }
    if (!after) throw badRequest('invalid_cursor', 'cursor: not one this server issued', 'cursor');
  }
  const found = await store.listByMonitor(db.orm, projectId, monitorId, { limit: page.pageSize + 1, after, outcome: page.outcome });
  const rows = found.slice(0, page.pageSize);
  const last = rows[rows.length - 1];
  return {
    data: rows.map((r) => ({
      evaluation_id: r.id,
      trace_id: r.traceId,
      status: r.status,
      passed: r.passed,
      score: r.score,
      label: r.label,
      details: r.details,
      inserted_at: Number(r.insertedAt),
    })),
    next_cursor: found.length > page.pageSize && last ? Buffer.from(JSON.stringify({ t: Number(last.insertedAt), i: last.id })).toString('base64url') : null,
  };
}

export interface MonitorResult {
  evaluation_id: string;
  trace_id: string;
  status: 'processed' | 'skipped' | 'error';
  passed: boolean | null;
  score: number | null;
  label: string | null;
  details: string | null;
  inserted_at: number;
}

/** A monitor's results counted per time bucket (of when they were stored). */
export async function monitorOutcomeCounts(db: Database, projectId: string, monitorId: string, range: { start: number; end: number; bucket: SQL }) {
  return store.countByMonitor(db.orm, projectId, monitorId, range);
}

/** For the traces module's deletions and retention sweep: the evaluations of these traces go with them. */
export async function deleteTraceEvaluations(db: Database | Executor, projectId: string, traceIds: readonly string[]): Promise<number> {
  return store.deleteByTraces('orm' in db ? db.orm : db, projectId, traceIds);
}

/**
 * Retention for results whose trace never arrived (or was swept): everything of the project
 * stored before `beforeMs` (epoch ms).
 */
export async function deleteEvaluationsInsertedBefore(db: Database | Executor, projectId: string, beforeMs: number): Promise<number> {
  return store.deleteInsertedBefore('orm' in db ? db.orm : db, projectId, beforeMs);
}

function toTraceEvaluation(row: store.EvaluationRow): TraceEvaluation {
  return {
    evaluation_id: row.id,
    name: row.name,
    type: row.evaluator,
    trace_id: row.traceId,
    project_id: row.projectId,
    status: row.status,
    score: row.score,
    passed: row.passed,
    label: row.label,
    details: row.details,
    cost: row.costAmount !== null ? { currency: row.costCurrency ?? 'USD', amount: row.costAmount } : null,
    is_guardrail: row.isGuardrail,
    timestamps: { inserted_at: Number(row.insertedAt), updated_at: Number(row.updatedAt) },
    error:
      row.status === 'error'
        ? {
            stacktrace: row.errorStacktrace ?? [],
            message: row.errorMessage ?? '',
            has_error: true,
            error_type: row.errorType,
          }
        : null,
  };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}
