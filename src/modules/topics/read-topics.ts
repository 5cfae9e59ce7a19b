import { badRequest } from '../../platform/errors.ts';
import { toMillis } from '../../platform/time-buckets.ts';
import type { TopicsContext } from './context.ts';
import type { Topic, TopicsResponse } from './schemas.ts';
import { topicsStatus } from './settings.ts';
import * as store from './store.ts';

const DAY_MS = 86_400_000;
const MAX_RANGE_DAYS = 400;


/**
 * The project's topics with what happened in them over a range: traces (and their share),
 * errors, cost, thumbs, verdicts per evaluator, and traces per day; largest first.
 */
export async function listTopicsWithMetrics(ctx: TopicsContext, projectId: string, q: { startDate?: number | string; endDate?: number | string }): Promise<TopicsResponse> {
  const endDate = q.endDate === undefined ? ctx.clock.now().getTime() : toMillis(q.endDate, 'endDate');
  const startDate = q.startDate === undefined ? endDate - 7 * DAY_MS : toMillis(q.startDate, 'startDate');
  if (endDate < startDate) throw badRequest('invalid_range', 'endDate: before startDate', 'endDate');
  if (endDate - startDate > MAX_RANGE_DAYS * DAY_MS) throw badRequest('invalid_range', `endDate: at most ${MAX_RANGE_DAYS} days after startDate`, 'endDate');
  const [topics, sizes, sums, verdicts, daily, status] = await Promise.all([
    store.listTopics(ctx.db.orm, projectId),
    store.topicSizes(ctx.db.orm, projectId),
    ctx.topicSums(projectId, { startDate, endDate }),
    ctx.topicVerdicts(projectId, { startDate, endDate }),
    store.dailyCounts(ctx.db.orm, projectId, startDate, endDate),
    topicsStatus(ctx, projectId),
  ]);
  const days = Math.max(1, Math.ceil((endDate - startDate + 1) / DAY_MS));
  const sumsOf = new Map(sums.map((s) => [s.group, s]));
  const inTopics = sums.reduce((n, s) => n + (s.group === null ? 0 : s.traces), 0);
  const out: Topic[] = topics.map((t) => {
    const s = sumsOf.get(t.topicId);
    const trend = Array.from({ length: days }, (_, i) => ({ start: startDate + i * DAY_MS, traces: 0 }));
    for (const r of daily) if (r.topic_id === t.topicId && r.day >= 0 && r.day < days) trend[r.day].traces = r.traces;
    const byEvaluator = new Map<string, { passed: number; failed: number }>();
    for (const v of verdicts) {
      if (v.g !== t.topicId || v.passed === null) continue;
      const e = byEvaluator.get(v.evaluator) ?? { passed: 0, failed: 0 };
      if (v.passed) e.passed++;
      else e.failed++;
      byEvaluator.set(v.evaluator, e);
    }
    const traces = s?.traces ?? 0;
    return {
      id: t.topicId,
      name: t.name,
      keywords: t.keywords,
      size: sizes.get(t.topicId) ?? 0,
      traces,
      share: inTopics > 0 ? traces / inTopics : null,
      errors: s?.errors ?? 0,
      error_rate: traces > 0 ? (s?.errors ?? 0) / traces : null,
      cost: s?.cost ?? 0,
      thumbs_up: s?.thumbs_up ?? 0,
      thumbs_down: s?.thumbs_down ?? 0,
      trend,
      evaluations: [...byEvaluator.entries()].map(([evaluator, e]) => ({ evaluator, ...e, pass_rate: e.passed + e.failed > 0 ? e.passed / (e.passed + e.failed) : null })),
    };
  });
  out.sort((a, b) => b.traces - a.traces || b.size - a.size || a.name.localeCompare(b.name));
  return { topics: out, startDate, endDate, status };
}
