import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import * as store from './store.ts';
import type { TraceContext } from './context.ts';

/** How long GenAI log events wait for a span that has not arrived (docs/api.md: Traces: sending them, OTLP logs). */
export const PENDING_LOG_EVENTS_TTL_MS = 3 * 86_400_000;
// Retention: traces past their project's period, a deleted project's traces, planner statistics.

/**
 * Planner statistics for the trace tables. PostgreSQL's autovacuum keeps them; PGlite has
 * no autovacuum, so the app runs this periodically (without them search plans go blind).
 */
export async function refreshStatistics(ctx: TraceContext): Promise<void> {
  await ctx.db.orm.execute(sql`ANALYZE traces, spans`);
}

/** Deletes every trace and span of a project, in the transaction that deletes the project. */
export async function deleteProjectTraces(tx: Executor, projectId: string): Promise<void> {
  await store.deleteProjectTraces(tx, projectId);
}

/**
 * Deletes traces older than each project's retention period (and what other modules keep
 * of that period: sweepBefore), and log events whose span never came. Answers the traces deleted.
 */
export async function sweepRetention(ctx: TraceContext): Promise<number> {
  let deleted = 0;
  const now = ctx.clock.now().getTime();
  await store.prunePendingLogEvents(ctx.db.orm, now - PENDING_LOG_EVENTS_TTL_MS);
  for (const { projectId, days } of await ctx.projects.retentionPolicies()) {
    // Rounds of a few thousand traces, each its own short transaction: a big backlog never
    // holds one huge transaction (and its locks and WAL) open beside ingest. PGlite runs
    // one statement at a time in this very thread, so there the rounds are smaller and
    // each is followed by a pause as long as itself: ingest waits one round at most.
    const round = ctx.db.kind === 'pglite' ? 500 : 2_000;
    const cutoff = now - days * 86_400_000;
    for (;;) {
      const started = performance.now();
      const gone = await ctx.db.orm.transaction(async (tx) => {
        const ids = await store.deleteTracesBefore(tx, projectId, cutoff, round);
        if (ids.length) for (const e of ctx.extensions) await e.onTracesDeleted?.(tx, projectId, ids);
        return ids.length;
      });
      deleted += gone;
      if (gone < round) break;
      if (ctx.db.kind === 'pglite') await new Promise((r) => setTimeout(r, performance.now() - started));
    }
    for (const e of ctx.extensions) await e.sweepBefore?.(projectId, cutoff);
  }
  return deleted;
}
