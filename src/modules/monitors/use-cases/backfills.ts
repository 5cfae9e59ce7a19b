import { AppError, badRequest, conflict, notFound } from '../../../platform/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { enqueueJobs, pendingJobKeys, PermanentJobError, type ClaimedJob } from '../../../platform/jobs/index.ts';
import { toMillis } from '../../../platform/time-buckets.ts';
import type { MonitorsContext, Scope } from '../context.ts';
import { BACKFILL_QUEUE, liveJobKey, sampled, type BackfillJobPayload } from '../jobs.ts';
import { presentBackfill } from '../presenters.ts';
import type { BackfillBody, BackfillPreview, BackfillView, MonitorFilters } from '../schemas.ts';
import { MAX_BACKFILL } from '../schemas.ts';
import * as store from '../store.ts';
import { traceData } from '../trace-data.schema.ts';
import { evaluateTrace } from './evaluate-trace.ts';
import { findMonitor } from './manage-monitors.ts';

/*
 * A monitor run over traces already stored: the traces matching a filter and a time range
 * (at most 10,000, newest first, in the monitor's sample) are evaluated by a background job a
 * chunk at a time, each result stored as the monitor's evaluation exactly as a live one
 * (`evaluateTrace`). A trace the monitor already evaluated at this evaluator version is
 * skipped, so running it again evaluates only what is new; so is a trace whose live
 * evaluation is pending (it arrived or changed during the backfill): the live job evaluates
 * it once, when its spans have settled. Both are checked just before each trace, not once
 * per chunk, so a live evaluation finishing meanwhile is not repeated.
 */

/** Traces one job goes through before handing over to the next (live monitor jobs run between them). */
export const BACKFILL_CHUNK = 20;
/** Traces whose prompt the cost estimate counts. */
const ESTIMATE_SAMPLE = 10;

/** How many traces a backfill would evaluate and what it would cost, before starting it. */
export async function previewBackfill(ctx: MonitorsContext, scope: Scope, monitorId: string, body: BackfillBody): Promise<BackfillPreview> {
  const monitor = await findMonitor(ctx, scope.projectId, monitorId);
  refuseThreadMonitor(monitor);
  const request = backfillRequest(ctx, monitor, body);
  const { ids, capped } = await matching(ctx, monitor, request);
  const samples = [];
  for (const traceId of ids.slice(0, ESTIMATE_SAMPLE)) {
    try {
      samples.push(traceData(await ctx.traceDetail(scope.projectId, traceId)));
    } catch (err) {
      if (!(err instanceof AppError && err.status === 404)) throw err;
    }
  }
  const e = await ctx.estimateCost(scope, monitor.evaluator, monitor.settings, samples);
  const method = !e.usesLlm
    ? 'This evaluator runs locally, without an LLM: no cost.'
    : e.costPerTrace === null
      ? `The model ${e.model ?? '(none)'} is not in the price table: no estimate.`
      : `Per trace: the judge's prompt counted with ${e.model}'s tokenizer, averaged over ${samples.length} of the matching traces (${e.promptTokensPerTrace} tokens), and an answer of about ${e.answerTokensPerTrace} tokens, priced by the price table; times ${ids.length} traces.`;
  return {
    count: ids.length,
    capped,
    limit: request.limit,
    estimated_cost: {
      amount: e.costPerTrace === null ? null : e.costPerTrace * ids.length,
      currency: e.currency,
      per_trace: e.costPerTrace,
      model: e.model,
      prompt_tokens_per_trace: e.promptTokensPerTrace,
      answer_tokens_per_trace: e.answerTokensPerTrace,
      method,
    },
  };
}

/** Starts a backfill (409 while another of the monitor's runs). */
export async function startBackfill(ctx: MonitorsContext, scope: Scope, monitorId: string, body: BackfillBody): Promise<BackfillView> {
  const monitor = await findMonitor(ctx, scope.projectId, monitorId);
  refuseThreadMonitor(monitor);
  const request = backfillRequest(ctx, monitor, body);
  // The evaluator must still run as saved (a deleted custom evaluator: a 400 now, not a failed job).
  await ctx.checkEvaluator(scope, monitor.evaluator, monitor.settings);
  const now = ctx.clock.now();
  const row = await ctx.db.orm.transaction(async (tx) => {
    if (await store.activeBackfill(tx, scope.projectId, monitorId)) return null;
    const inserted = await store.insertBackfill(tx, { id: newId('backfill'), organization_id: scope.organizationId, project_id: scope.projectId, monitor_id: monitorId, request }, now);
    await enqueueJobs(tx, [{ queue: BACKFILL_QUEUE, payload: { backfillId: inserted.id }, runAt: now.getTime(), maxAttempts: 5 }], now.getTime());
    return inserted;
  });
  if (!row) throw conflict('backfill_running', `monitor ${monitorId} is already running over past traces; wait for it or cancel it`);
  return presentBackfill(row);
}

export async function getBackfill(ctx: MonitorsContext, projectId: string, monitorId: string, id: string): Promise<BackfillView> {
  return presentBackfill(await findBackfill(ctx, projectId, monitorId, id));
}

export async function listBackfills(ctx: MonitorsContext, projectId: string, monitorId: string): Promise<BackfillView[]> {
  await findMonitor(ctx, projectId, monitorId);
  return (await store.listBackfills(ctx.db.orm, projectId, monitorId, 20)).map(presentBackfill);
}

/** Stops it after the trace being evaluated; what was stored stays. */
export async function cancelBackfill(ctx: MonitorsContext, projectId: string, monitorId: string, id: string): Promise<BackfillView> {
  const found = await findBackfill(ctx, projectId, monitorId, id);
  const updated = await store.updateBackfill(ctx.db.orm, found.id, { state: 'cancelled' }, ctx.clock.now());
  return presentBackfill(updated ?? (await findBackfill(ctx, projectId, monitorId, id)));
}

/** A job: match the traces on the first run, then evaluate the next chunk of them and hand over to the next job. */
export async function runBackfillJob(ctx: MonitorsContext, job: ClaimedJob<BackfillJobPayload>): Promise<void> {
  let b = await store.backfillById(ctx.db.orm, job.payload.backfillId);
  if (!b || (b.state !== 'queued' && b.state !== 'running')) return;
  const scope = { organizationId: b.organization_id, projectId: b.project_id };
  const monitor = await store.findMonitor(ctx.db.orm, b.project_id, b.monitor_id);
  if (!monitor) return; // deleted: its backfills went with it
  const fail = async (message: string): Promise<never> => {
    await store.updateBackfill(ctx.db.orm, b!.id, { state: 'failed', error: message }, ctx.clock.now());
    throw new PermanentJobError(message);
  };
  let version: number | null;
  try {
    version = await ctx.evaluatorVersion(scope, monitor.evaluator, monitor.settings);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return fail(err.message);
    throw err;
  }
  if (b.state === 'queued') {
    const { ids } = await matching(ctx, monitor, b.request);
    b = await store.updateBackfill(ctx.db.orm, b.id, { state: 'running', trace_ids: ids, total: ids.length, position: 0 }, ctx.clock.now());
    if (!b) return; // cancelled meanwhile
  }
  const chunk = b.trace_ids.slice(b.position, b.position + BACKFILL_CHUNK);
  for (const traceId of chunk) {
    const counts = { position: b.position + 1, evaluated: b.evaluated, skipped: b.skipped, failed: b.failed };
    if (await leftAlone(ctx, monitor, version, traceId)) counts.skipped++;
    else {
      const outcome = await evaluateTrace(ctx, monitor, traceId);
      if (outcome === 'gone') counts.skipped++;
      else if (typeof outcome === 'object' || outcome === 'error') counts.failed++;
      else counts.evaluated++;
    }
    const next = await store.updateBackfill(ctx.db.orm, b.id, counts, ctx.clock.now());
    if (!next) return; // cancelled
    b = next;
  }
  if (b.position >= b.total) {
    await store.updateBackfill(ctx.db.orm, b.id, { state: 'completed' }, ctx.clock.now());
    return;
  }
  const now = ctx.clock.now().getTime();
  await enqueueJobs(ctx.db.orm, [{ queue: BACKFILL_QUEUE, payload: { backfillId: b.id }, runAt: now, maxAttempts: 5 }], now);
}

/** Evaluated already at this version, or about to be by its live job. */
async function leftAlone(ctx: MonitorsContext, monitor: store.MonitorRow, version: number | null, traceId: string): Promise<boolean> {
  const [evaluated, pending] = await Promise.all([
    ctx.evaluatedTraces(monitor.project_id, monitor.id, version, [traceId]),
    pendingJobKeys(ctx.db.orm, [liveJobKey(monitor.id, traceId)]),
  ]);
  return evaluated.size > 0 || pending.size > 0;
}

function backfillRequest(ctx: MonitorsContext, monitor: store.MonitorRow, body: BackfillBody): store.BackfillRow['request'] {
  const startDate = toMillis(body.startDate, 'body.startDate');
  const endDate = body.endDate === undefined ? ctx.clock.now().getTime() : toMillis(body.endDate, 'body.endDate');
  if (endDate < startDate) throw badRequest('invalid_range', 'body.endDate: before body.startDate', 'body.endDate');
  return { startDate, endDate, filters: body.filters === undefined ? monitor.filters : body.filters, limit: body.limit };
}

/** The traces to evaluate, newest first: matching, in the monitor's sample, at most `limit`. */
async function matching(ctx: MonitorsContext, monitor: store.MonitorRow, request: store.BackfillRow['request']): Promise<{ ids: string[]; capped: boolean }> {
  const search: { startDate: number; endDate: number; filters?: MonitorFilters } = { startDate: request.startDate, endDate: request.endDate };
  if (request.filters) search.filters = request.filters;
  // One more than the cap tells whether it was reached.
  const found = await ctx.matchingTraces(monitor.project_id, search, Math.min(MAX_BACKFILL, request.limit) + 1);
  const inSample = found.filter((id) => sampled(monitor.id, id, monitor.sample));
  return { ids: inSample.slice(0, request.limit), capped: found.length > request.limit };
}

async function findBackfill(ctx: MonitorsContext, projectId: string, monitorId: string, id: string): Promise<store.BackfillRow> {
  await findMonitor(ctx, projectId, monitorId);
  const row = await store.findBackfill(ctx.db.orm, projectId, monitorId, id);
  if (!row) throw notFound('backfill_not_found', `no backfill ${id} of monitor ${monitorId}`);
  return row;
}

/** A backfill goes through stored traces: a thread monitor evaluates threads as they go idle instead. */
function refuseThreadMonitor(monitor: store.MonitorRow): void {
  if (monitor.unit === 'thread') throw badRequest('thread_monitor', 'unit: this monitor evaluates threads (as each goes idle); a backfill runs a trace monitor over stored traces', 'unit');
}
