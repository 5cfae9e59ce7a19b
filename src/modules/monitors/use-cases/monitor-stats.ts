import { AppError } from '../../../platform/errors.ts';
import { bucketing, toMillis, type Interval } from '../../../platform/time-buckets.ts';
import type { DistributionRow, MonitorsContext, ScoreRow } from '../context.ts';
import type { MonitorResultsResponse, MonitorStatsResponse, ScoreSummary } from '../schemas.ts';
import { findMonitor } from './manage-monitors.ts';

/** The monitor's results, newest first: what its page lists (each links to its trace). */
export async function monitorResultsPage(
  ctx: MonitorsContext,
  projectId: string,
  id: string,
  page: { pageSize: number; cursor?: string; outcome?: 'passed' | 'failed' | 'error' | 'skipped' },
): Promise<MonitorResultsResponse> {
  await findMonitor(ctx, projectId, id);
  return ctx.results(projectId, id, page);
}

/** Passed, failed, errors and skipped per interval of when they ran: the monitor's pass rate over time. */
export async function monitorStats(
  ctx: MonitorsContext,
  projectId: string,
  id: string,
  q: { startDate?: number | string; endDate?: number | string; interval?: Interval | 'auto'; utcOffsetMinutes?: number },
): Promise<MonitorStatsResponse> {
  await findMonitor(ctx, projectId, id);
  const end = q.endDate !== undefined ? toMillis(q.endDate, 'endDate') : ctx.clock.now().getTime();
  const start = q.startDate !== undefined ? toMillis(q.startDate, 'startDate') : end - 7 * 86_400_000;
  if (end < start) throw new AppError(400, 'invalid_range', 'endDate: before startDate', { field: 'endDate' });
  if (end - start > 400 * 86_400_000) throw new AppError(400, 'invalid_range', 'endDate: at most 400 days after startDate', { field: 'endDate' });
  const b = bucketing(start, end, q.interval ?? 'auto', 'interval', q.utcOffsetMinutes ?? 0);
  const range = { start, end, buckets: b.spec };
  const [counts, perBucket, whole] = await Promise.all([
    ctx.outcomeCounts(projectId, id, range),
    ctx.scores(projectId, id, range),
    ctx.scores(projectId, id, { start, end, buckets: null, distribution: true }),
  ]);
  const byStart = new Map(counts.map((c) => [Number(c.b), c]));
  const scoresByStart = new Map(perBucket.scores.map((r) => [Number(r.b), r]));
  return {
    interval: b.interval,
    intervalMs: b.intervalMs,
    startDate: start,
    endDate: end,
    overall: { score: scoreSummary(whole.scores[0]), distribution: distribution(whole.distribution), labels: labelCounts(whole.labels) },
    buckets: b.starts.map((s) => {
      const c = byStart.get(s);
      const [passed, failed, errors, skipped] = c ? [Number(c.passed), Number(c.failed), Number(c.errors), Number(c.skipped)] : [0, 0, 0, 0];
      return {
        start: s,
        passed,
        failed,
        errors,
        skipped,
        pass_rate: passed + failed > 0 ? passed / (passed + failed) : null,
        score: scoreSummary(scoresByStart.get(s)),
        labels: labelCounts(perBucket.labels.filter((l) => Number(l.b) === s)),
      };
    }),
  };
}

/** Every bin from the lowest score to the highest, empty ones counted 0. */
function distribution(rows: DistributionRow[]): { from: number; to: number; count: number }[] {
  if (!rows.length) return [];
  const [{ bins, lo, hi, whole }] = rows;
  const counts = new Map(rows.map((r) => [Number(r.bin), Number(r.n)]));
  const width = whole ? 1 : (Number(hi) - Number(lo)) / Number(bins);
  return Array.from({ length: Number(bins) }, (_, i) => {
    const from = Number(lo) + i * width;
    return { from, to: whole ? from : i === Number(bins) - 1 ? Number(hi) : from + width, count: counts.get(i) ?? 0 };
  });
}

/** A group's scores as answered: null when nothing in it was scored. */
function scoreSummary(row: ScoreRow | undefined): ScoreSummary | null {
  if (!row || Number(row.scored) === 0) return null;
  return { count: Number(row.scored), mean: Number(row.mean), min: Number(row.min), p50: Number(row.p50), p90: Number(row.p90), max: Number(row.max) };
}

/** A group's labels, most frequent first. */
function labelCounts(rows: { label: string; n: number }[]): { label: string; count: number }[] {
  return rows.map((r) => ({ label: r.label, count: Number(r.n) })).sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
}
