import { AppError, notFound } from '../../../platform/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { moveJobs } from '../../../platform/jobs/index.ts';
import type { MonitorsContext, Scope } from '../context.ts';
import { THREAD_MONITOR_QUEUE, threadJobKeyPrefix } from '../jobs.ts';
import { presentMonitor } from '../presenters.ts';
import type { MonitorFilters, MonitorView } from '../schemas.ts';
import * as store from '../store.ts';
import { changedTrigger, newTrigger, threadDueAt } from '../thread-trigger.ts';
import { forgetEnabled } from './enabled-monitors.ts';

export interface NewMonitor {
  name: string;
  evaluator: string;
  settings: Record<string, unknown>;
  sample: number;
  filters?: MonitorFilters | null;
  enabled: boolean;
  review_queue_id?: string | null;
  unit?: 'trace' | 'thread';
  idle_minutes?: number | null;
  schedule_minutes?: number | null;
}

export type MonitorPatch = Partial<Omit<MonitorView, 'id' | 'project_id' | 'unit' | 'created_at' | 'updated_at'>>;

export async function listMonitors(ctx: MonitorsContext, projectId: string): Promise<MonitorView[]> {
  return (await store.listMonitors(ctx.db.orm, projectId)).map(presentMonitor);
}

export async function getMonitor(ctx: MonitorsContext, projectId: string, id: string): Promise<MonitorView> {
  return presentMonitor(await findMonitor(ctx, projectId, id));
}

export async function createMonitor(ctx: MonitorsContext, scope: Scope, input: NewMonitor): Promise<MonitorView> {
  const unit = input.unit ?? 'trace';
  const trigger = newTrigger(unit, input);
  checkQueueUnit(unit, input.review_queue_id ?? null);
  await ctx.checkEvaluator(scope, input.evaluator, input.settings, unit);
  await checkQueue(ctx, scope.projectId, input.review_queue_id ?? null);
  const row = await store.insertMonitor(
    ctx.db.orm,
    {
      id: newId('mon'),
      organization_id: scope.organizationId,
      project_id: scope.projectId,
      name: input.name,
      evaluator: input.evaluator,
      settings: input.settings,
      sample: input.sample,
      filters: input.filters ?? null,
      enabled: input.enabled,
      review_queue_id: input.review_queue_id ?? null,
      unit,
      ...trigger,
    },
    ctx.clock.now(),
  );
  forgetEnabled(ctx, scope.projectId);
  return presentMonitor(row);
}

export async function updateMonitor(ctx: MonitorsContext, projectId: string, id: string, patch: MonitorPatch): Promise<MonitorView> {
  const current = await findMonitor(ctx, projectId, id);
  const trigger = changedTrigger(current.unit, current, patch);
  const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), ...trigger };
  if (patch.review_queue_id) checkQueueUnit(current.unit, patch.review_queue_id);
  if (patch.evaluator !== undefined || patch.settings !== undefined) {
    await ctx.checkEvaluator({ organizationId: current.organization_id, projectId }, next.evaluator, next.settings, current.unit);
  }
  if (patch.review_queue_id !== undefined) await checkQueue(ctx, projectId, patch.review_queue_id);
  const row = await store.updateMonitor(ctx.db.orm, next, ctx.clock.now());
  if (current.unit === 'thread' && (trigger.idle_minutes !== current.idle_minutes || trigger.schedule_minutes !== current.schedule_minutes)) {
    // Threads already waiting are due by the new trigger: idle from now, or at the schedule's next run.
    await moveJobs(ctx.db.orm, THREAD_MONITOR_QUEUE, threadJobKeyPrefix(row.id), threadDueAt(trigger, ctx.clock.now().getTime()));
  }
  forgetEnabled(ctx, projectId);
  return presentMonitor(row);
}

export async function removeMonitor(ctx: MonitorsContext, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
  if (!(await store.deleteMonitor(ctx.db.orm, projectId, id))) throw notFound('monitor_not_found', `no monitor ${id} in this project`);
  forgetEnabled(ctx, projectId);
  return { id, deleted: true };
}

/** The monitor's row: 404 when the project has none of this id. */
export async function findMonitor(ctx: MonitorsContext, projectId: string, id: string): Promise<store.MonitorRow> {
  const row = await store.findMonitor(ctx.db.orm, projectId, id);
  if (!row) throw notFound('monitor_not_found', `no monitor ${id} in this project`);
  return row;
}

async function checkQueue(ctx: MonitorsContext, projectId: string, queueId: string | null): Promise<void> {
  if (queueId !== null && !(await ctx.reviewQueueExists(projectId, queueId))) {
    throw new AppError(400, 'unknown_review_queue', `body.review_queue_id: no review queue ${queueId} in this project`, { field: 'body.review_queue_id' });
  }
}

/** Review queues hold traces: a thread monitor has none (400 naming the field). */
function checkQueueUnit(unit: 'trace' | 'thread', reviewQueueId: string | null): void {
  if (unit === 'thread' && reviewQueueId !== null) {
    throw new AppError(400, 'validation_error', 'body.review_queue_id: review queues hold traces; a thread monitor cannot send threads to one', { field: 'body.review_queue_id' });
  }
}
