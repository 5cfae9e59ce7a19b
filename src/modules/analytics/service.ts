import type { SQL } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/index.ts';
import { badRequest } from '../../platform/errors.ts';
import { bucketing, toMillis } from '../../platform/time-buckets.ts';
import type { TimeseriesBucket, TimeseriesRequest, TimeseriesResponse, UsersResponse, usersRequestSchema } from './schemas.ts';
import type { z } from 'zod';
import { aggregateTraces, aggregateUsers, evaluationValues, groupSums, threadIdsSql, traceValues, windowEvaluationValues, windowOf, windowScoreValues, windowTraceValues, type GroupBy, type MetricsRow, type ScoreBucketRow, type ThumbsRow, type TraceValueColumn, type Totals } from '../traces/index.ts';

/** What analytics reads of other modules (wired by app.ts). */
export interface AnalyticsDeps {
  /** The trace search's query, dates and filters as conditions on `traces` (one filter compiler). */
  searchConditions(projectId: string, req: Pick<TimeseriesRequest, 'query' | 'filters'> & { startDate?: number; endDate?: number }): SQL[];
  /** Rows (trace_id, is_thumbs_up) of a project's annotations. */
  thumbsSql(projectId: string): SQL;
  /** Rows (trace_id, name, evaluator, passed) of a project's evaluations that gave a verdict. */
  verdictsSql(projectId: string): SQL;
  /** Rows (trace_id, config_id, name, kind, number_value, text_value) of a project's review scores. */
  scoresSql(projectId: string): SQL;
  /** Rows (trace_id, name, evaluator, status, passed, score) of a project's evaluation results that ran. */
  evaluationResultsSql(projectId: string): SQL;
  /** The topic of the `traces` row a query is on (grouping by topic); absent: no topics module. */
  topicOfTraceSql?(): SQL;
  /** Thread monitors' results per name and bucket of when they ran, of the threads `threads` lists when given (the threads module's). */
  threadResults(db: Executor, projectId: string, q: ThreadSeriesQuery): Promise<{ name: string; b: number; evaluated: number; passed: number; failed: number; errors: number; scored: number; mean: number | null }[]>;
  /** People's thread scores per config and bucket of when given, categories apart (the annotations module's). */
  threadScores(db: Executor, projectId: string, q: ThreadSeriesQuery): Promise<ScoreBucketRow[]>;
}

/** A range of thread series: when results and scores were stored, bucketed; only some threads (rows of thread_id) or all. */
export interface ThreadSeriesQuery {
  start: number;
  end: number;
  bucketOf: (column: SQL) => SQL;
  threads: SQL | null;
}

/** One period (alerts' windows, reports' days) of a project's traces: dates inclusive, the trace filter, and a split. */
export interface PeriodQuery {
  startDate: number;
  endDate: number;
  filters?: TimeseriesRequest['filters'];
  groupBy: GroupBy;
}

/**
 * Windows of a period (alerts' windows, read many at once): `windowMs` long from `startDate`,
 * each row saying its window's start (`window`); the dates inclusive, as a period's.
 */
export interface WindowsQuery extends PeriodQuery {
  windowMs: number;
}

/** A group's sums over a period: every group, uncapped (alerts decide each one). */
export interface GroupSums {
  group: string | null;
  traces: number;
  errors: number;
  cost: number;
  tokens: number;
  thumbs_up: number;
  thumbs_down: number;
}

type ScoreKind = TimeseriesResponse['scores'][number]['kind'];

export const MAX_RANGE_DAYS = 400;
export const MAX_GROUPS = 10;

export class AnalyticsService {
  constructor(
    private readonly db: Database,
    private readonly deps: AnalyticsDeps,
  ) {}

  /** Charts of a project over a range: per bucket (and group) counts, sums, latency percentiles, verdicts and thumbs. */
  async timeseries(projectId: string, req: TimeseriesRequest): Promise<TimeseriesResponse> {
    const startDate = toMillis(req.startDate, 'startDate');
    const endDate = toMillis(req.endDate, 'endDate');
    if (endDate < startDate) throw badRequest('invalid_range', 'endDate: before startDate', 'endDate');
    if (endDate - startDate > MAX_RANGE_DAYS * 86_400_000) throw badRequest('invalid_range', `endDate: at most ${MAX_RANGE_DAYS} days after startDate`, 'endDate');
    const buckets = bucketing(startDate, endDate, req.interval ?? 'auto', 'interval', req.utcOffsetMinutes ?? 0);
    const groupBy = req.groupBy ?? null;
    const reads = await this.db.reads.executor();
    // Thread results are dated by when they ran, not by their traces: a search keeps the threads with a trace it picks, at any time.
    const picked = req.query || (req.filters && Object.keys(req.filters).length) ? this.deps.searchConditions(projectId, { query: req.query, filters: req.filters }) : null;
    const threadQuery: ThreadSeriesQuery = { start: startDate, end: endDate, bucketOf: (column) => buckets.bucketOf(column), threads: picked && threadIdsSql(projectId, picked) };
    const [result, threadResults, threadScores] = await Promise.all([
      aggregateTraces(reads, {
        projectId,
        where: this.deps.searchConditions(projectId, { query: req.query, filters: req.filters, startDate, endDate }),
        bucket: buckets.bucketOf(sql`traces.started_at`),
        groupBy,
        foreignGroups: this.foreignGroups(),
        maxGroups: MAX_GROUPS,
        thumbs: this.deps.thumbsSql(projectId),
        verdicts: this.deps.verdictsSql(projectId),
        scores: this.deps.scoresSql(projectId),
      }),
      this.deps.threadResults(reads, projectId, threadQuery),
      this.deps.threadScores(reads, projectId, threadQuery),
    ]);

    // One series per group: the kept groups by traces (most first), then "other".
    const key = (kept: boolean, g: string | null) => (kept ? `g:${g ?? ''}:${g === null ? 'null' : ''}` : 'other');
    const series = new Map<string, { group: string | null; other: boolean; traces: number; byStart: Map<number, TimeseriesBucket> }>();
    const seriesOf = (kept: boolean, g: string | null) => {
      const k = key(kept, g);
      let s = series.get(k);
      if (!s) series.set(k, (s = { group: kept ? g : 'other', other: !kept, traces: 0, byStart: new Map() }));
      return s;
    };
    for (const m of result.metrics) {
      const s = seriesOf(m.kept, m.g);
      s.traces += Number(m.traces);
      const [p50, p95, p99] = m.latency ?? [null, null, null];
      s.byStart.set(Number(m.b), {
        start: Number(m.b),
        traces: Number(m.traces),
        spans: Number(m.spans),
        errors: Number(m.errors),
        error_rate: m.traces > 0 ? Number(m.errors) / Number(m.traces) : null,
        cost: roundUsd(Number(m.cost)),
        tokens: { prompt: Number(m.prompt), completion: Number(m.completion), cached: Number(m.cached), reasoning: Number(m.reasoning) },
        latency_ms: { p50: p50 ?? null, p95: p95 ?? null, p99: p99 ?? null },
        thumbs_up: 0,
        thumbs_down: 0,
      });
    }
    for (const t of result.thumbs) {
      const bucket = series.get(key(t.kept, t.g))?.byStart.get(Number(t.b));
      if (bucket) {
        bucket.thumbs_up = Number(t.up);
        bucket.thumbs_down = Number(t.down);
      }
    }
    // Without any trace there is still one (empty) series, so a chart has its axis.
    if (series.size === 0 && groupBy === null) seriesOf(true, null);
    const ordered = [...series.values()].sort((a, b) => Number(a.other) - Number(b.other) || b.traces - a.traces || String(a.group).localeCompare(String(b.group)));

    const verdicts = new Map<string, { evaluator: string; type: string; byStart: Map<number, { passed: number; failed: number }> }>();
    for (const v of result.verdicts) {
      const k = `${v.name}\u0000${v.evaluator}`;
      const e = verdicts.get(k) ?? verdicts.set(k, { evaluator: v.name, type: v.evaluator, byStart: new Map() }).get(k)!;
      e.byStart.set(Number(v.b), { passed: Number(v.passed), failed: Number(v.failed) });
    }

    const threadEvaluations = new Map<string, Map<number, (typeof threadResults)[number]>>();
    for (const r of threadResults) (threadEvaluations.get(r.name) ?? threadEvaluations.set(r.name, new Map()).get(r.name)!).set(Number(r.b), r);

    // Each trace is in one series unless grouped by model or label: then the store counted the totals.
    const t = result.totals ?? sumOf(result.metrics, result.thumbs);
    return {
      interval: buckets.interval,
      intervalMs: buckets.intervalMs,
      startDate,
      endDate,
      series: ordered.map((s) => ({ group: s.group, other: s.other, buckets: buckets.starts.map((start) => s.byStart.get(start) ?? emptyBucket(start)) })),
      evaluations: [...verdicts.values()]
        .sort((a, b) => a.evaluator.localeCompare(b.evaluator) || a.type.localeCompare(b.type))
        .map((e) => ({
          evaluator: e.evaluator,
          type: e.type,
          buckets: buckets.starts.map((start) => {
            const { passed, failed } = e.byStart.get(start) ?? { passed: 0, failed: 0 };
            return { start, passed, failed, pass_rate: passed + failed > 0 ? passed / (passed + failed) : null };
          }),
        })),
      scores: scoreSeries(result.scores, buckets.starts),
      threadEvaluations: [...threadEvaluations]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, byStart]) => ({
          name,
          buckets: buckets.starts.map((start) => {
            const r = byStart.get(start);
            const [passed, failed] = r ? [r.passed, r.failed] : [0, 0];
            return {
              start,
              evaluated: r?.evaluated ?? 0,
              passed,
              failed,
              errors: r?.errors ?? 0,
              pass_rate: passed + failed > 0 ? passed / (passed + failed) : null,
              scored: r?.scored ?? 0,
              mean_score: r?.mean ?? null,
            };
          }),
        })),
      threadScores: scoreSeries(threadScores, buckets.starts),
      totals: {
        traces: Number(t.traces),
        spans: Number(t.spans),
        errors: Number(t.errors),
        cost: roundUsd(Number(t.cost)),
        tokens: { prompt: Number(t.prompt), completion: Number(t.completion), cached: Number(t.cached), reasoning: Number(t.reasoning) },
        thumbs_up: Number(t.up),
        thumbs_down: Number(t.down),
      },
    };
  }

  /** Sums per group over one period, every group (no "other"): what a report's period counts. */
  async periodSums(projectId: string, q: PeriodQuery): Promise<GroupSums[]> {
    return (await this.sums(projectId, q, sql`${q.startDate}::bigint`)).map(({ window: _, ...s }) => s);
  }

  /** periodSums per window: one statement for every window of the period (a rule's windows). */
  async windowSums(projectId: string, q: WindowsQuery): Promise<(GroupSums & { window: number })[]> {
    return this.sums(projectId, q, windowOf(q.startDate, q.windowMs));
  }

  private async sums(projectId: string, q: PeriodQuery, bucket: SQL): Promise<(GroupSums & { window: number })[]> {
    const result = await groupSums(await this.db.reads.executor(), {
      projectId,
      where: this.periodWhere(projectId, q),
      bucket,
      groupBy: q.groupBy,
      foreignGroups: this.foreignGroups(),
      thumbs: this.deps.thumbsSql(projectId),
    });
    const thumbs = new Map(result.thumbs.map((t) => [`${Number(t.b)}\u0000${t.g ?? '\u0001'}`, t]));
    return result.metrics.map((m) => {
      const t = thumbs.get(`${Number(m.b)}\u0000${m.g ?? '\u0001'}`);
      return {
        window: Number(m.b),
        group: m.g,
        traces: Number(m.traces),
        errors: Number(m.errors),
        cost: roundUsd(Number(m.cost)),
        tokens: Number(m.prompt) + Number(m.completion),
        thumbs_up: Number(t?.up ?? 0),
        thumbs_down: Number(t?.down ?? 0),
      };
    });
  }

  /** One value per trace (latency, first-token time, cost, tokens) per window and group: for percentiles and rank tests. */
  async windowValues(projectId: string, q: WindowsQuery & { column: TraceValueColumn }): Promise<{ window: number; g: string | null; values: number[] }[]> {
    return windowTraceValues(await this.db.reads.executor(), { projectId, where: this.periodWhere(projectId, q), groupBy: q.groupBy, foreignGroups: this.foreignGroups(), column: q.column, bucket: windowOf(q.startDate, q.windowMs) }).then((found) =>
      found.map((r) => ({ window: r.b, g: r.g, values: r.v })),
    );
  }

  /** Evaluation results counted per window and group (a trace segment or the evaluation's name), with their scores. */
  async windowEvaluations(
    projectId: string,
    q: Omit<WindowsQuery, 'groupBy'> & { groupBy: GroupBy | 'evaluator'; evaluator: string | null },
  ): Promise<{ window: number; g: string | null; ran: number; errors: number; verdicts: number; passed: number; scores: number[] }[]> {
    return windowEvaluationValues(await this.db.reads.executor(), {
      projectId,
      where: this.periodWhere(projectId, { ...q, groupBy: null }),
      groupBy: q.groupBy,
      foreignGroups: this.foreignGroups(),
      results: this.deps.evaluationResultsSql(projectId),
      evaluator: q.evaluator,
      bucket: windowOf(q.startDate, q.windowMs),
    }).then((found) => found.map(({ b, ...r }) => ({ window: b, ...r })));
  }

  /** One review score config per window: scores, their sum, those in `category`, and each scored trace's mean. */
  async windowScores(
    projectId: string,
    q: Omit<WindowsQuery, 'groupBy'> & { configId: string; category: string | null },
  ): Promise<{ window: number; kind: string; count: number; total: number; inCategory: number; traceMeans: number[] }[]> {
    return windowScoreValues(await this.db.reads.executor(), {
      projectId,
      where: this.periodWhere(projectId, { ...q, groupBy: null }),
      scores: this.deps.scoresSql(projectId),
      configId: q.configId,
      category: q.category,
      bucket: windowOf(q.startDate, q.windowMs),
    }).then((found) => found.map(({ b, ...r }) => ({ window: b, ...r })));
  }

  /** One value per trace (latency, first-token time, cost, tokens) and its group, over a period: for percentiles and rank tests. */
  async periodValues(projectId: string, q: PeriodQuery & { column: TraceValueColumn; limit: number }): Promise<{ g: string | null; v: number }[]> {
    return traceValues(await this.db.reads.executor(), { projectId, where: this.periodWhere(projectId, q), groupBy: q.groupBy, foreignGroups: this.foreignGroups(), column: q.column, limit: q.limit });
  }

  /** The evaluation results (status, verdict, score) of a period's traces, grouped by a trace segment or by evaluation name. */
  async periodEvaluations(
    projectId: string,
    q: Omit<PeriodQuery, 'groupBy'> & { groupBy: GroupBy | 'evaluator'; evaluator: string | null; limit: number },
  ): Promise<{ g: string | null; name: string; status: string; passed: boolean | null; score: number | null }[]> {
    return evaluationValues(await this.db.reads.executor(), {
      projectId,
      where: this.periodWhere(projectId, { ...q, groupBy: null }),
      groupBy: q.groupBy,
      foreignGroups: this.foreignGroups(),
      results: this.deps.evaluationResultsSql(projectId),
      evaluator: q.evaluator,
      limit: q.limit,
    });
  }

  private foreignGroups() {
    return this.deps.topicOfTraceSql ? { topic: this.deps.topicOfTraceSql() } : {};
  }

  private periodWhere(projectId: string, q: PeriodQuery): SQL[] {
    return this.deps.searchConditions(projectId, { filters: q.filters, startDate: q.startDate, endDate: q.endDate });
  }

  /**
   * The application's end users (the traces' user_id): traces, cost, tokens, errors, thumbs,
   * first and last seen per user, over the traces the search and dates pick; sorted and paged.
   */
  async users(projectId: string, req: z.output<typeof usersRequestSchema>): Promise<UsersResponse> {
    const startDate = req.startDate === undefined ? undefined : toMillis(req.startDate, 'startDate');
    const endDate = req.endDate === undefined ? undefined : toMillis(req.endDate, 'endDate');
    if (startDate !== undefined && endDate !== undefined && endDate < startDate) throw badRequest('invalid_range', 'endDate: before startDate', 'endDate');
    const found = await aggregateUsers(await this.db.reads.executor(), {
      projectId,
      where: this.deps.searchConditions(projectId, { query: req.query, filters: req.filters, startDate, endDate }),
      thumbs: this.deps.thumbsSql(projectId),
      contains: req.search || null,
      sortBy: req.sortBy,
      direction: req.sortDirection,
      limit: req.pageSize,
      offset: (req.page - 1) * req.pageSize,
    });
    let total = found[0]?.total ?? 0;
    // A page past the end has no row to carry the count.
    if (!found.length && req.page > 1) total = (await aggregateUsers(await this.db.reads.executor(), { projectId, where: this.deps.searchConditions(projectId, { query: req.query, filters: req.filters, startDate, endDate }), thumbs: this.deps.thumbsSql(projectId), contains: req.search || null, sortBy: 'user_id', direction: 'asc', limit: 1, offset: 0 }))[0]?.total ?? 0;
    return {
      users: found.map((u) => ({
        user_id: u.user_id,
        traces: Number(u.traces),
        cost: roundUsd(Number(u.cost)),
        tokens: { prompt: Number(u.prompt_tokens), completion: Number(u.completion_tokens) },
        errors: Number(u.errors),
        thumbs_up: Number(u.thumbs_up),
        thumbs_down: Number(u.thumbs_down),
        first_seen: Number(u.first_seen),
        last_seen: Number(u.last_seen),
      })),
      pagination: { page: req.page, pageSize: req.pageSize, total: Number(total) },
    };
  }
}

/** Scores (of traces or of threads) per config, counted per bucket: numeric and boolean as a mean, categories counted. */
function scoreSeries(rows: ScoreBucketRow[], starts: number[]): TimeseriesResponse['scores'] {
  const scores = new Map<string, { configId: string; name: string; kind: ScoreKind; byStart: Map<number, { count: number; total: number; counts: Record<string, number> }> }>();
  for (const r of rows) {
    const c = scores.get(r.config_id) ?? scores.set(r.config_id, { configId: r.config_id, name: r.name, kind: r.kind as ScoreKind, byStart: new Map() }).get(r.config_id)!;
    const b = c.byStart.get(Number(r.b)) ?? c.byStart.set(Number(r.b), { count: 0, total: 0, counts: {} }).get(Number(r.b))!;
    b.count += Number(r.n);
    b.total += Number(r.total ?? 0);
    if (r.category !== null) b.counts[r.category] = Number(r.n);
  }
  return [...scores.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((c) => ({
      configId: c.configId,
      name: c.name,
      kind: c.kind,
      buckets: starts.map((start) => {
        const b = c.byStart.get(start);
        if (!b) return { start, count: 0, mean: null, counts: {} };
        return { start, count: b.count, mean: c.kind === 'categorical' ? null : b.total / b.count, counts: c.kind === 'categorical' ? b.counts : {} };
      }),
    }));
}

function sumOf(metrics: MetricsRow[], thumbs: ThumbsRow[]): Totals {
  const t: Totals = { traces: 0, spans: 0, errors: 0, cost: 0, prompt: 0, completion: 0, cached: 0, reasoning: 0, up: 0, down: 0 };
  for (const m of metrics) {
    for (const k of ['traces', 'spans', 'errors', 'cost', 'prompt', 'completion', 'cached', 'reasoning'] as const) t[k] += Number(m[k]);
  }
  for (const x of thumbs) {
    t.up += Number(x.up);
    t.down += Number(x.down);
  }
  return t;
}

/** Sums of float costs drift in the last digits; the summary keeps 10 decimals, so do the sums. */
const roundUsd = (v: number) => Math.round(v * 1e10) / 1e10;

function emptyBucket(start: number): TimeseriesBucket {
  return {
    start,
    traces: 0,
    spans: 0,
    errors: 0,
    error_rate: null,
    cost: 0,
    tokens: { prompt: 0, completion: 0, cached: 0, reasoning: 0 },
    latency_ms: { p50: null, p95: null, p99: null },
    thumbs_up: 0,
    thumbs_down: 0,
  };
}
