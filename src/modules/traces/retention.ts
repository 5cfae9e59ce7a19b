import { performance } from 'node:perf_hooks';
import type { Executor } from '../../db/index.ts';
import { DAY_MS, dayOf } from '../../db/day-partitions.ts';
import { dropDayRollups } from './rollup-store.ts';
import * as store from './store.ts';
import type { TraceContext } from './context.ts';

/** How long GenAI log events wait for a span that has not arrived (docs/api.md: Traces: sending them, OTLP logs). */
export const PENDING_LOG_EVENTS_TTL_MS = 3 * 86_400_000;
// Retention: traces past their project's period, a deleted project's traces, planner statistics.

/** Days made ahead of today (and back), each with its partitions of spans, traces and the extensions' dayTables. */
const DAYS_AHEAD = 3;
const DAYS_BACK = 1;

/** Makes the partitions of the days around today (on start, and every few hours). */
export async function makeDays(ctx: TraceContext): Promise<void> {
  const today = dayOf(ctx.clock.now().getTime());
  await ctx.days.ensure(Array.from({ length: DAYS_BACK + DAYS_AHEAD + 1 }, (_, i) => today - DAYS_BACK + i));
}

/**
 * Planner statistics for the trace tables. PostgreSQL's autovacuum keeps them; PGlite has
 * no autovacuum, so the app runs this periodically (without them search plans go blind).
 */
export async function refreshStatistics(ctx: TraceContext): Promise<void> {
  await store.analyzeTraceTables(ctx.db.orm);
}

/** Deletes every trace and span of a project, in the transaction that deletes the project. */
export async function deleteProjectTraces(tx: Executor, projectId: string): Promise<void> {
  await store.deleteProjectTraces(tx, projectId);
}

/**
 * Drops whole days: a day's partitions go when every project with traces (or other rows kept
 * by day) that day is past its retention period for the whole day (a trace's day is the day it started on, and its start
 * only moves earlier: all of them are). What other modules keep of those traces goes first,
 * in rounds of their own; then the day's partitions, in one short transaction. A day that
 * also holds traces of a project keeping them longer stays, and its expired traces are
 * deleted row by row (below). Answers the traces dropped.
 */
async function dropExpiredDays(ctx: TraceContext, cutoffs: Map<string, number>): Promise<number> {
  if (!cutoffs.size) return 0;
  const latest = Math.max(...cutoffs.values());
  // Other modules' tables kept by their trace's day go with the day's partitions; the rest
  // remove what they keep of the day's traces first.
  const dayTables = ctx.extensions.flatMap((e) => e.dayTables ?? []);
  const removers = ctx.extensions.filter((e) => !e.dayTables?.length);
  let dropped = 0;
  for (const day of await ctx.days.days()) {
    const end = (day + 1) * DAY_MS;
    if (end > latest) break;
    const held = await store.tracesOfDay(ctx.db.orm, day);
    // A project may hold rows of the day in those tables without a trace of it (a result whose trace never came).
    const holders = new Set([...held.map((p) => p.projectId), ...(await ctx.days.projectsOn(day, dayTables))]);
    if (![...holders].every((p) => end <= (cutoffs.get(p) ?? -Infinity))) continue;
    for (const { projectId, traceIds } of held) {
      for (let i = 0; i < traceIds.length; i += ROUND) {
        const ids = traceIds.slice(i, i + ROUND);
        await ctx.db.orm.transaction(async (tx) => {
          for (const e of removers) await e.onTracesDeleted?.(tx, projectId, ids);
          await store.deleteShares(tx, projectId, ids);
        });
      }
      dropped += traceIds.length;
    }
    // The day's rollup rows go in the drop's own transaction: its hours are marked dirty, so a chart never reads rows of dropped traces.
    await ctx.days.drop(day, async (tx) => {
      await dropDayRollups(tx, day);
      return true;
    });
  }
  return dropped;
}

/** Traces of other modules' rounds when a day is dropped. */
const ROUND = 2_000;

/**
 * Deletes traces older than each project's retention period (and what other modules keep
 * of that period: sweepBefore), and log events whose span never came. Answers the traces deleted.
 */
export async function sweepRetention(ctx: TraceContext): Promise<number> {
  const now = ctx.clock.now().getTime();
  await store.prunePendingLogEvents(ctx.db.orm, now - PENDING_LOG_EVENTS_TTL_MS);
  const policies = await ctx.projects.retentionPolicies();
  let deleted = await dropExpiredDays(ctx, new Map(policies.map((p) => [p.projectId, now - p.days * DAY_MS])));
  for (const { projectId, days } of policies) {
    // Rounds of a few thousand traces, each its own short transaction: a big backlog never
    // holds one huge transaction (and its locks and WAL) open beside ingest. PGlite runs
    // one statement at a time in this very thread, so there the rounds are smaller and
    // each is followed by a pause as long as itself: ingest waits one round at most.
    const round = ctx.db.kind === 'pglite' ? 500 : ROUND;
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
