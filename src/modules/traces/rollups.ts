import { performance } from 'node:perf_hooks';
import type { TraceContext } from './context.ts';
import { dirtyHours, HOUR_MS, rollUpHours, type FeedbackRelations } from './rollup-store.ts';

/** The project's thumbs and verdicts from the modules that own them (their TraceExtension). */
function feedbackOf(ctx: TraceContext, projectId: string): FeedbackRelations {
  const thumbs = ctx.extensions.find((e) => e.thumbs);
  const verdicts = ctx.extensions.find((e) => e.verdicts);
  return { thumbs: thumbs?.thumbs?.(projectId), verdicts: verdicts?.verdicts?.(projectId) };
}

/** Dirty hours read per round, and recomputed per transaction (PGlite runs nothing else meanwhile). */
const ROUND_HOURS = 500;
const HOURS_PER_TRANSACTION = { pglite: 6, postgres: 48 } as const;

/**
 * Recomputes the hourly rollups of the hours marked dirty (docs/architecture.md: Analytics
 * rollups), in short transactions, until none is left, every dirty hour seen was already
 * recomputed in this run (ingest keeps the current hour dirty), or `budgetMs` has passed.
 * Answers the hours recomputed.
 */
export async function rollUpDirtyHours(ctx: TraceContext, budgetMs = 30_000): Promise<number> {
  const started = performance.now();
  const done = new Set<string>();
  let count = 0;
  for (;;) {
    const found = await dirtyHours(ctx.db.orm, ROUND_HOURS);
    const fresh = found.map((p) => ({ projectId: p.projectId, hours: p.hours.filter((h) => !done.has(`${p.projectId}:${h}`)) })).filter((p) => p.hours.length);
    if (!fresh.length) break;
    for (const { projectId, hours } of fresh) {
      // Nearby hours together: each transaction reads one range of the summaries, at most `per` hours long.
      hours.sort((a, b) => a - b);
      const per = HOURS_PER_TRANSACTION[ctx.db.kind];
      for (let i = 0; i < hours.length; ) {
        let n = 1;
        while (i + n < hours.length && hours[i + n] < hours[i] + per * HOUR_MS) n++;
        const chunk = hours.slice(i, i + n);
        i += n;
        await ctx.db.orm.transaction((tx) => rollUpHours(tx, projectId, chunk, feedbackOf(ctx, projectId)));
        for (const h of chunk) done.add(`${projectId}:${h}`);
        count += chunk.length;
        if (performance.now() - started > budgetMs) return count;
      }
    }
  }
  return count;
}
