import { AppError } from '../../../platform/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { threadTurns, type ThreadTurnRow } from '../../traces/index.ts';
import type { Scope, ThreadsContext, ThreadVerdict, TurnContents } from '../context.ts';
import { threadData } from '../conversation.ts';
import * as store from '../store.ts';

/** A thread's first turns evaluated at once: a judge's context holds a few hundred turns at most. */
export const MAX_TURNS = 200;

/** The monitor as evaluating a thread needs it. */
export interface ThreadMonitorLike {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  evaluator: string;
  settings: Record<string, unknown>;
}

function coveredThrough(turns: readonly ThreadTurnRow[]): number {
  return turns.reduce((m, t) => Math.max(m, t.updated_at), 0);
}

/**
 * Evaluates a whole thread with a thread monitor's evaluator: its turns in order, as the
 * conversation variables (conversation.ts), and stores the result against the thread with
 * the turns it covered. A thread whose turns are those the monitor's last result covered,
 * unchanged since, at the same evaluator version, is not evaluated again. Answers whether
 * the thread changed while the evaluator ran (a new turn, or late spans of one).
 */
export async function evaluateThread(ctx: ThreadsContext, monitor: ThreadMonitorLike, threadId: string): Promise<{ changedSince: boolean }> {
  const scope: Scope = { organizationId: monitor.organization_id, projectId: monitor.project_id };
  const turns = await threadTurns(ctx.db.orm, scope.projectId, threadId, MAX_TURNS);
  if (!turns.length) return { changedSince: false }; // deleted since (retention, project removal)
  const through = coveredThrough(turns);
  const ids = turns.map((t) => t.trace_id);

  let version: number | null = null;
  let verdict: ThreadVerdict;
  try {
    version = await ctx.evaluatorVersion(scope, monitor.evaluator, monitor.settings);
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    verdict = { status: 'error', details: err.message };
  }
  const last = await store.latestOfMonitor(ctx.db.orm, scope.projectId, monitor.id, threadId);
  if (last && last.evaluator_version === version && last.covered_through >= through && sameTurns(last.trace_ids, ids)) return { changedSince: false };

  verdict ??= await judge(ctx, scope, monitor, ids);
  await store.insertThreadEvaluation(ctx.db.orm, {
    id: newId('teval'),
    project_id: scope.projectId,
    thread_id: threadId,
    monitor_id: monitor.id,
    evaluator: monitor.evaluator,
    evaluator_version: version,
    name: monitor.name,
    status: verdict.status,
    passed: verdict.passed ?? null,
    score: verdict.score ?? null,
    label: verdict.label ?? null,
    details: verdict.details ?? null,
    cost_amount: verdict.cost?.amount ?? null,
    trace_ids: ids,
    turns: ids.length,
    covered_through: through,
    inserted_at: ctx.clock.now().getTime(),
  });

  const now = await threadTurns(ctx.db.orm, scope.projectId, threadId, MAX_TURNS);
  return { changedSince: !sameTurns(now.map((t) => t.trace_id), ids) || coveredThrough(now) > through };
}

async function judge(ctx: ThreadsContext, scope: Scope, monitor: ThreadMonitorLike, ids: string[]): Promise<ThreadVerdict> {
  const contents = await ctx.contents(scope.projectId, ids);
  const turns: TurnContents[] = ids.map((id) => contents.get(id) ?? { input: { value: '' }, output: { value: '' }, spans: [] });
  return ctx.runEvaluator(scope, monitor.evaluator, threadData(turns), monitor.settings);
}

function sameTurns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
