import { performance } from 'node:perf_hooks';
import type { Executor } from '../../../db/index.ts';
import { dayOf } from '../../../db/day-partitions.ts';
import { AppError } from '../../../platform/errors.ts';
import { emitEvent, type EventType } from '../../../platform/events/index.ts';
import { newId } from '../../../platform/ids.ts';
import type { EvaluationScope, EvaluatorsContext } from '../context.ts';
import { runEvaluator } from '../runner.ts';
import type { EvaluateBody } from '../schemas.ts';
import * as store from '../store.ts';
import type { EvaluationResult } from '../types.ts';
import { prepareRun, type PreparedRun } from './resolve-evaluator.ts';

export type AnsweredResult = EvaluationResult & { evaluation_id?: string };

export interface EvaluationOutcome {
  results: AnsweredResult[];
  /** as_guardrail only: may the guarded call proceed (no result has passed === false)? */
  guardrailPassed: boolean | null;
}

const MAX_EVENT_DETAILS = 1000;

/**
 * Runs one evaluator (400 for bad data or settings, 404 for an unknown path). With a
 * trace_id the result is stored on that trace; either way its webhook events are written,
 * in the same transaction as the stored result. A monitor's run records the monitor as its origin.
 */
export async function evaluate(
  ctx: EvaluatorsContext,
  scope: EvaluationScope,
  path: string,
  body: EvaluateBody,
  signal?: AbortSignal,
  origin: { monitorId?: string } = {},
): Promise<EvaluationOutcome> {
  const prepared = await prepareRun(ctx, scope, path, body.data, body.settings);
  const { custom, definition, input } = prepared;
  let result: AnsweredResult = await execute(ctx, prepared, signal);

  // Nobody is waiting for this answer: store nothing the client was not told about.
  if (signal?.aborted) throw new AppError(499, 'client_closed_request', 'the client closed the connection before the evaluation finished');

  const asGuardrail = body.as_guardrail === true;
  if (asGuardrail) {
    // A verdict against the content blocks the call, and so does a failed evaluation: a
    // guardrail that could not run (not configured, provider down) must not wave everything
    // through. A skip or a score without a verdict lets the call proceed.
    result = { ...result, passed: result.status !== 'error' && result.passed !== false };
  }

  const now = ctx.clock.now();
  const name = body.name ?? definition.name;
  const traceId = body.trace_id ?? null;
  const stored = await storedForm(ctx, scope.projectId, result);
  await ctx.db.orm.transaction(async (tx) => {
    if (traceId) {
      // Kept in its trace's day, dropped with it by retention; a result ahead of its trace takes today.
      const day = (await ctx.traceDay(tx, scope.projectId, traceId)) ?? dayOf(now.getTime());
      const row = await store.insertEvaluation(tx, {
        id: newId('eval'),
        projectId: scope.projectId,
        traceId,
        evaluator: definition.path,
        name,
        status: stored.status,
        score: stored.score ?? null,
        passed: stored.passed ?? null,
        label: stored.label ?? null,
        details: stored.details ?? null,
        costAmount: stored.cost?.amount ?? null,
        costCurrency: stored.cost?.currency ?? null,
        settings: input.settings as Record<string, unknown>,
        isGuardrail: asGuardrail,
        errorType: stored.status === 'error' ? (stored.error_type ?? 'Error') : null,
        errorMessage: stored.status === 'error' ? (stored.details ?? '') : null,
        errorStacktrace: stored.status === 'error' ? (stored.traceback ?? []) : null,
        insertedAt: now.getTime(),
        updatedAt: now.getTime(),
        monitorId: origin.monitorId ?? null,
        evaluatorVersion: custom?.version ?? null,
        day,
      });
      result = { ...result, evaluation_id: row.id };
    }
    await emitEvents(tx, scope, { result: { ...stored, evaluation_id: result.evaluation_id }, path: definition.path, name, traceId, asGuardrail, version: custom?.version ?? null }, now);
  });

  return { results: [result], guardrailPassed: asGuardrail ? result.passed !== false : null };
}

/**
 * Runs one evaluator as evaluate() does, without storing its result or writing events (an
 * experiment run stores its own): data, settings or an evaluator it cannot run answer a
 * result with status error naming why.
 */
export async function runDetached(
  ctx: EvaluatorsContext,
  scope: EvaluationScope,
  path: string,
  data: Record<string, unknown>,
  settings: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<EvaluationResult> {
  let prepared;
  try {
    prepared = await prepareRun(ctx, scope, path, data, settings);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return { status: 'error', details: err.message, error_type: err.status === 400 ? 'ValidationError' : err.code };
    throw err;
  }
  return execute(ctx, prepared, signal);
}

async function execute(ctx: EvaluatorsContext, prepared: PreparedRun, signal: AbortSignal | undefined): Promise<EvaluationResult> {
  const { definition, input, providers, custom } = prepared;
  const started = performance.now();
  try {
    const result = await runEvaluator(definition, input, {
      env: ctx.models.env,
      fetch: ctx.models.fetch,
      now: () => ctx.clock.now(),
      timeoutMs: ctx.limits.timeoutMs,
      maxRetries: ctx.limits.maxRetries,
      signal,
      providers,
      model: custom?.config.model,
    });
    ctx.metrics.evaluatorRun(definition.path, result.status, (performance.now() - started) / 1000, result.error_type ?? undefined);
    return result;
  } catch (err) {
    ctx.metrics.evaluatorRun(definition.path, 'error', (performance.now() - started) / 1000, err instanceof Error ? err.name : 'Error');
    throw err;
  }
}

/** A result as stored and sent to webhooks: its label, details and traceback redacted (the caller's answer is not stored). */
async function storedForm(ctx: EvaluatorsContext, projectId: string, result: AnsweredResult): Promise<AnsweredResult> {
  const r = await ctx.redactor(projectId, 'evaluations');
  if (!r?.active) return result;
  const stored = { ...result, label: r.value(result.label, 'label'), details: r.value(result.details, 'details'), traceback: r.value(result.traceback, 'details') };
  r.take();
  return stored;
}

async function emitEvents(
  tx: Executor,
  scope: EvaluationScope,
  e: { result: AnsweredResult; path: string; name: string; traceId: string | null; asGuardrail: boolean; version: number | null },
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
    ...(e.version !== null ? { evaluator_version: e.version } : {}),
  };
  const base = { organizationId: scope.organizationId, projectId: scope.projectId };
  const type: EventType = result.status === 'error' ? 'evaluation.failed' : 'evaluation.completed';
  await emitEvent(tx, { ...base, type, data }, now);
  if (e.asGuardrail && result.passed === false) {
    await emitEvent(tx, { ...base, type: 'guardrail.triggered', data }, now);
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}
