import type { z } from 'zod';
import { badRequest } from '../../../platform/errors.ts';
import { bucketing, toMillis } from '../../../platform/time-buckets.ts';
import type { ThreadsContext } from '../context.ts';
import type { threadScoresRequestSchema, ThreadScoresResponse } from '../schemas.ts';
import * as store from '../store.ts';

const MAX_RANGE_MS = 400 * 86_400_000;

/** Thread scores over time: per thread monitor (by name), results, verdicts, pass rate and mean score per interval of when they ran. */
export async function threadScoreSeries(ctx: ThreadsContext, projectId: string, req: z.output<typeof threadScoresRequestSchema>): Promise<ThreadScoresResponse> {
  const start = toMillis(req.startDate, 'body.startDate');
  const end = toMillis(req.endDate, 'body.endDate');
  if (end < start) throw badRequest('invalid_range', 'body.endDate: before startDate', 'body.endDate');
  if (end - start > MAX_RANGE_MS) throw badRequest('invalid_range', 'body.endDate: at most 400 days after startDate', 'body.endDate');
  const b = bucketing(start, end, req.interval, 'body.interval', req.utcOffsetMinutes);
  const found = await store.scoreBuckets(ctx.db.orm, projectId, { start, end, bucketOf: (column) => b.bucketOf(column), name: req.name ?? null });
  const names = [...new Set(found.map((r) => r.name))].sort();
  return {
    interval: b.interval,
    intervalMs: b.intervalMs,
    startDate: start,
    endDate: end,
    series: names.map((name) => {
      const byStart = new Map(found.filter((r) => r.name === name).map((r) => [Number(r.b), r]));
      return {
        name,
        buckets: b.starts.map((s) => {
          const r = byStart.get(s);
          const [passed, failed] = r ? [Number(r.passed), Number(r.failed)] : [0, 0];
          return {
            start: s,
            evaluated: r ? Number(r.evaluated) : 0,
            passed,
            failed,
            errors: r ? Number(r.errors) : 0,
            pass_rate: passed + failed > 0 ? passed / (passed + failed) : null,
            mean_score: r && r.mean !== null ? Number(r.mean) : null,
          };
        }),
      };
    }),
  };
}
