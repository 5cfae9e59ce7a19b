/**
 * Time series over a project's trace summaries (analytics' query): the traces table is the
 * traces module's, so the query that reads it lives here, and analytics calls it through
 * the module's face. Thumbs, verdicts, scores and topics come in as typed relations built by
 * their owners (annotations, evaluators, topics), joined here through their typed columns;
 * the filter's conditions come from traces/filter.ts.
 */
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { containsPattern, rows, textArray, type Executor } from '../../db/index.ts';
import { bucketSql, type BucketSpec } from '../../platform/time-buckets.ts';
import type { EvaluationResultsRelation, ScoresRelation, ThumbsRelation, TopicsRelation, VerdictsRelation } from './relations.ts';
import { sketchPercentiles } from './latency-sketch.ts';
import { dirtyHoursIn, HOUR_MS, LATENCY_BUCKET, tracesStartIn } from './rollup-store.ts';


/** customer: the trace's customer_id; prompt: the prompt version a trace ran (metadata prompt_handle:prompt_version, as a prompt run records it). */
export type GroupBy = 'model' | 'label' | 'user' | 'customer' | 'prompt' | 'topic' | null;

/** Groups whose value another module owns, as its typed relation (topics: each trace's topic). */
export interface ForeignGroups {
  topic?: TopicsRelation;
}

export interface AggregateQuery {
  projectId: string;
  /** The trace search's conditions on `traces` (dates included). */
  where: SQL[];
  /** Bucket start of `traces.started_at`. */
  bucket: SQL;
  groupBy: GroupBy;
  foreignGroups?: ForeignGroups;
  /** Groups with a series of their own (most traces first), the rest as "other"; null: every group. */
  maxGroups: number | null;
  /** The project's thumbs (the annotations module's relation). */
  thumbs: ThumbsRelation;
  /** The project's evaluations that gave a verdict (the evaluators module's relation). */
  verdicts: VerdictsRelation;
  /** The project's review scores (the annotations module's relation). */
  scores: ScoresRelation;
  /**
   * The whole hours [from, to) of the range, read from the hourly rollups where clean (the
   * conditions are the dates alone, grouped by nothing or by model, and `spec`'s buckets are
   * whole hours: `bucket` is bucketSql(spec, started_at)); absent: every trace is read.
   */
  rollup?: RollupRange;
}

/** Whole hours of a range the rollups may answer, and the buckets as data. */
export interface RollupRange {
  from: number;
  to: number;
  /** The range itself: traces started at `start` up to `end` (inclusive), in epoch ms. */
  start: number;
  end: number;
  spec: BucketSpec;
}

/** Sums of one bucket of one group; token sums are float8 (they outgrow int4 over big ranges). */
export interface MetricsRow {
  kept: boolean;
  g: string | null;
  b: number;
  traces: number;
  spans: number;
  errors: number;
  cost: number;
  prompt: number;
  completion: number;
  cached: number;
  reasoning: number;
  /** [p50, p95, p99] of total_time_ms, from the latency sketch: each within 1 % of the exact one */
  latency: number[] | null;
}

export interface ThumbsRow {
  kept: boolean;
  g: string | null;
  b: number;
  up: number;
  down: number;
}

export interface VerdictRow {
  name: string;
  evaluator: string;
  b: number;
  passed: number;
  failed: number;
}

/** One score config in one bucket; categorical configs have a row per category. */
export interface ScoreBucketRow {
  config_id: string;
  name: string;
  kind: string;
  b: number;
  /** categorical: the category; null otherwise */
  category: string | null;
  n: number;
  /** sum of the numeric values (boolean: 1 for true) */
  total: number | null;
}

export type Totals = Omit<MetricsRow, 'kept' | 'g' | 'b' | 'latency'> & { up: number; down: number };

export interface AggregateResult {
  metrics: MetricsRow[];
  thumbs: ThumbsRow[];
  verdicts: VerdictRow[];
  scores: ScoreBucketRow[];
  /** Null when every trace is in exactly one group (the caller sums the buckets). */
  totals: Totals | null;
}

/**
 * The group a trace row falls in; a trace with several models or labels counts once in each
 * (with its whole cost and tokens), one with none in the null group.
 */
function groupJoin(groupBy: GroupBy, foreign: ForeignGroups = {}): { join: SQL; column: SQL } {
  const each = (array: string) => ({
    join: sql.raw(`CROSS JOIN LATERAL unnest(CASE WHEN cardinality(traces.${array}) = 0 THEN ARRAY[NULL]::text[] ELSE traces.${array} END) AS grp(g)`),
    column: sql`grp.g`,
  });
  if (groupBy === 'model') return each('normalized_models');
  if (groupBy === 'label') return each('labels');
  if (groupBy === 'user') return { join: sql``, column: sql`traces.user_id` };
  if (groupBy === 'customer') return { join: sql``, column: sql`traces.customer_id` };
  if (groupBy === 'prompt') return { join: sql``, column: PROMPT_VERSION };
  if (groupBy === 'topic') {
    const topics = foreign.topic;
    if (!topics) throw new Error('grouping by topic needs the topics module');
    return { join: sql`LEFT JOIN ${topics} ON ${topics.traceId} = traces.trace_id`, column: sql`${topics.topicId}` };
  }
  return { join: sql``, column: sql`NULL::text` };
}

/** Thumbs up and down counted over the joined rows of a thumbs relation. */
function thumbCounts(a: ThumbsRelation): SQL {
  return sql`count(*) FILTER (WHERE ${a.isThumbsUp})::int AS up, count(*) FILTER (WHERE NOT ${a.isThumbsUp})::int AS down`;
}

/** `handle:version` (the prompts' own reference form), `handle` without a version, null without a prompt. */
const PROMPT_VERSION = sql`CASE WHEN traces.metadata ? 'prompt_handle' THEN (traces.metadata->>'prompt_handle') || coalesce(':' || (traces.metadata->>'prompt_version'), '') END`;

const SUMS = sql.raw(`count(*)::int AS traces, coalesce(sum(span_count), 0)::float8 AS spans,
  count(*) FILTER (WHERE has_error)::int AS errors, coalesce(sum(total_cost), 0)::float8 AS cost,
  coalesce(sum(prompt_tokens), 0)::float8 AS prompt, coalesce(sum(completion_tokens), 0)::float8 AS completion,
  coalesce(sum(cached_input_tokens), 0)::float8 AS cached, coalesce(sum(reasoning_tokens), 0)::float8 AS reasoning`);

/** SUMS per latency sketch bucket (`v`): a histogram of latencies with the sums of each bar (`n` its traces with a latency, the sketch's count). */
const HISTOGRAM_SUMS = sql.raw(`count(*) AS n, count(*) AS traces, sum(span_count) AS spans, count(*) FILTER (WHERE has_error) AS errors, sum(total_cost) AS cost,
  sum(prompt_tokens) AS prompt, sum(completion_tokens) AS completion, sum(cached_input_tokens) AS cached, sum(reasoning_tokens) AS reasoning`);

/** The p50, p95 and p99 of the charts. */
const PERCENTILES = [0.5, 0.95, 0.99];

/**
 * The charts' sums and latency sketch per (kept, g, b) from `histogram` (rows kept, g, b, v, n and
 * the sums of HISTOGRAM_SUMS: at most one per latency sketch bucket `v` holding `n` traces, the
 * sums on any of a (kept, g, b)'s rows), and the percentiles of each sketch (latency-sketch.ts):
 * hashing the traces into bars is one pass, where percentile_cont sorts every trace of every
 * bucket. The planner cannot tell how few buckets an expression of started_at makes (it counts
 * one per trace) and would sort them all: the statement runs with sorting discouraged and
 * without JIT compilation.
 */
async function latencyHistogramSums(db: Executor, histogram: SQL): Promise<MetricsRow[]> {
  const statement = sql`SELECT kept, g, b, coalesce(sum(traces), 0)::int AS traces, coalesce(sum(spans), 0)::float8 AS spans, coalesce(sum(errors), 0)::int AS errors,
      coalesce(sum(cost), 0)::float8 AS cost, coalesce(sum(prompt), 0)::float8 AS prompt, coalesce(sum(completion), 0)::float8 AS completion,
      coalesce(sum(cached), 0)::float8 AS cached, coalesce(sum(reasoning), 0)::float8 AS reasoning,
      array_agg(v::int) FILTER (WHERE v IS NOT NULL) AS vs, array_agg(n::int) FILTER (WHERE v IS NOT NULL) AS ns
    FROM (${histogram}) h GROUP BY 1, 2, 3`;
  const found = await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL enable_sort = off`);
    // Discouraging a sort adds to the plan's cost, past the bounds where PostgreSQL compiles it (seconds).
    await tx.execute(sql`SET LOCAL jit = off`);
    return rows<Omit<MetricsRow, 'latency'> & { vs: number[] | null; ns: number[] | null }>(tx, statement);
  });
  return found.map(({ vs, ns, ...m }) => ({ ...m, latency: vs && ns ? sketchPercentiles(vs.map(Number), ns.map(Number), PERCENTILES) : null }));
}

/** The columns of a summary row the sums read (a source's rows, per trace). */
const SUMMED_COLUMNS = sql`traces.started_at, ${LATENCY_BUCKET} AS latency_bucket, traces.span_count, traces.has_error, traces.total_cost,
  traces.prompt_tokens, traces.completion_tokens, traces.cached_input_tokens, traces.reasoning_tokens`;

/** What the rollup readers below take: the search's conditions, the whole hours, and the dirty ones among them. */
interface HourQuery {
  projectId: string;
  where: SQL;
  rollup: RollupRange;
  dirty: number[];
}

/** A rollup table's (alias `r`) rows of the project's clean hours in [from, to). */
function cleanHours(q: HourQuery): SQL {
  const { from, to } = q.rollup;
  return sql`r.project_id = ${q.projectId} AND r.hour >= ${from}::bigint AND r.hour < ${to}::bigint
        AND r.hour <> ALL(${textArray(q.dirty.map(String))}::bigint[])`;
}

/**
 * Conditions on `traces` for what the rollups do not answer, one per part: the range's partial
 * hours at either end, and the `dirty` hours (read by the caller just before) as ranges of
 * started_at, which the planner prunes day partitions by (a join to a list of hours scanned
 * every partition).
 */
function liveParts(q: HourQuery): SQL[] {
  const { from, to, start, end } = q.rollup;
  const ranges = hourRanges(q.dirty);
  const dirty = ranges.map(([a, b]) => sql`(traces.started_at >= ${a}::bigint AND traces.started_at < ${b}::bigint)`);
  // A part at either end only when the range has a partial hour there (each part is planned over every day partition).
  return [
    ...(start < from ? [sql`traces.started_at < ${from}::bigint`] : []),
    ...(end >= to ? [sql`traces.started_at >= ${to}::bigint`] : []),
    ...(dirty.length ? [sql`(${sql.join(dirty, sql` OR `)})`] : []),
  ];
}

/** The hour a trace starts in. */
const TRACE_HOUR = sql`traces.started_at - traces.started_at % ${HOUR_MS}::bigint`;

/** The sums' columns of trace_rollups (alias `r`) as the histogram's rows name them. */
const ROLLED_UP_SUMS = sql.raw(`r.traces, r.spans, r.errors, r.cost, r.prompt_tokens AS prompt, r.completion_tokens AS completion,
  r.cached_input_tokens AS cached, r.reasoning_tokens AS reasoning`);

/**
 * Rows (g, t, v, n, and the sums of HISTOGRAM_SUMS) of the matching traces per group `g` and
 * hour `t`: the clean hours of [from, to) from trace_rollups (byModel: its model groups, else all
 * traces), and the rest (liveParts) from the summaries. With `sketch`, the latency sketch's
 * entries too (bucket `v` holding `n` traces: an hour's, or a bar per hour and bucket from the
 * summaries); the sums are on other rows, or on any one of an hour's bars. Without it, no row
 * has a `v`.
 */
function hourSums(q: HourQuery, group: { join: SQL; column: SQL }, byModel: boolean, sketch: boolean): SQL {
  const live = (extra: SQL) => sql`SELECT ${group.column} AS g, ${SUMMED_COLUMNS} FROM traces ${group.join} WHERE ${q.where} AND ${extra}`;
  const hourOf = sql`started_at - started_at % ${HOUR_MS}::bigint`;
  const rolled = sql`FROM trace_rollups r WHERE ${cleanHours(q)} AND r.by_model = ${byModel}`;
  return sql.join(
    [
      sql`SELECT r.model AS g, r.hour AS t, NULL::smallint AS v, NULL::bigint AS n, ${ROLLED_UP_SUMS} ${rolled}`,
      ...(sketch
        ? [
            // unnest in the select list (both arrays in step): no tuplestore per row, as unnest in FROM makes (half the time).
            sql`SELECT r.model AS g, r.hour AS t, unnest(r.latency_buckets) AS v, unnest(r.latency_counts)::bigint AS n,
                NULL::bigint, NULL::bigint, NULL::bigint, NULL::float8, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint ${rolled}`,
          ]
        : []),
      ...liveParts(q).map((extra) =>
        sketch
          ? sql`SELECT g, ${hourOf} AS t, latency_bucket AS v, ${HISTOGRAM_SUMS} FROM (${live(extra)}) x GROUP BY 1, 2, 3`
          : sql`SELECT g, ${hourOf} AS t, NULL::smallint AS v, ${HISTOGRAM_SUMS} FROM (${live(extra)}) x GROUP BY 1, 2`,
      ),
    ],
    sql` UNION ALL `,
  );
}

/**
 * A condition on another module's trace id column: one of the traces of a live part (a few
 * hours' traces, as an array read first). The evaluations' index of each day is then probed
 * for those traces only, where a join reads every verdict of the project (a sequential scan of
 * each day's evaluations: 100 ms per part at 200,000 verdicts). Thumbs (one table, 20,000 at
 * 1M traces) measured the same either way and are joined.
 */
function ofLiveTraces(q: HourQuery, extra: SQL, traceId: SQL | SQLWrapper): SQL {
  return sql`${traceId} = ANY(ARRAY(SELECT traces.trace_id FROM traces WHERE ${q.where} AND ${extra}))`;
}

/**
 * Rows (g, t, up, down) of the matching traces' thumbs per group `g` and hour `t`: the clean
 * hours from trace_thumb_rollups (byModel: its model groups), the rest joined to the summaries.
 */
function thumbHours(q: HourQuery, thumbs: ThumbsRelation, group: { join: SQL; column: SQL }, byModel: boolean): SQL {
  return sql.join(
    [
      sql`SELECT r.model AS g, r.hour AS t, r.up, r.down FROM trace_thumb_rollups r WHERE ${cleanHours(q)} AND r.by_model = ${byModel}`,
      ...liveParts(q).map(
        (extra) => sql`SELECT ${group.column} AS g, ${TRACE_HOUR} AS t, ${thumbCounts(thumbs)}
          FROM ${thumbs} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${thumbs.traceId} ${group.join}
          WHERE ${q.where} AND ${extra} GROUP BY 1, 2`,
      ),
    ],
    sql` UNION ALL `,
  );
}

/**
 * Rows (name, evaluator, t, passed, failed) of the matching traces' verdicts per hour `t`: the
 * clean hours from trace_verdict_rollups, the rest joined to the summaries.
 */
function verdictHours(q: HourQuery, v: VerdictsRelation): SQL {
  return sql.join(
    [
      sql`SELECT r.name, r.evaluator, r.hour AS t, r.passed, r.failed FROM trace_verdict_rollups r WHERE ${cleanHours(q)}`,
      ...liveParts(q).map(
        (extra) => sql`SELECT ${v.name} AS name, ${v.evaluator} AS evaluator, ${TRACE_HOUR} AS t,
            count(*) FILTER (WHERE ${v.passed}) AS passed, count(*) FILTER (WHERE NOT ${v.passed}) AS failed
          FROM ${v} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${v.traceId}
          WHERE ${q.where} AND ${extra} AND ${ofLiveTraces(q, extra, v.traceId)} GROUP BY 1, 2, 3`,
      ),
    ],
    sql` UNION ALL `,
  );
}

/** Sorted hours as [start, end) ranges of consecutive hours. */
function hourRanges(hours: number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const h of [...hours].sort((a, b) => a - b)) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === h) last[1] = h + HOUR_MS;
    else ranges.push([h, h + HOUR_MS]);
  }
  return ranges;
}

/** More dirty hours than this in a range (after an upgrade, a bulk load): the chart reads every summary instead. */
const MAX_DIRTY_HOURS = 48;

/** The groups of a rollup query: model groups (the rollups' by_model rows) or none. */
const ROLLUP_GROUPS = (groupBy: GroupBy) => (groupBy === 'model' ? groupJoin('model') : groupJoin(null));

/**
 * A few statements over the per-trace summary table, each one pass over the matching
 * traces (no materialized intermediate: on PGlite that cost several times the scan), read
 * from its covering index traces_time_sums: the groups with most traces first (grouped
 * only, with the totals when a trace can be in several groups), then at once the sums and
 * percentiles per group and bucket, and thumbs, verdicts and scores joined to the same traces.
 */
export async function aggregateTraces(db: Executor, q: AggregateQuery): Promise<AggregateResult> {
  const where = sql.join([sql`traces.project_id = ${q.projectId}`, ...q.where], sql` AND `);
  let rollup = q.rollup && (q.groupBy === null || q.groupBy === 'model') ? q.rollup : null;
  // The range's last hour, partly in the range (a chart that ends now), holds the same traces as
  // the range's part of it when none of them starts after the range's end: then it is a whole
  // hour of the range, rolled up (when clean) like the others.
  if (rollup && rollup.end >= rollup.to && !(await tracesStartIn(db, q.projectId, rollup.end + 1, rollup.to + HOUR_MS))) {
    rollup = { ...rollup, to: rollup.to + HOUR_MS };
  }
  // The hours of the range not rolled up yet. A write committed after this read and before a
  // statement below is not seen in its hour (as if the chart had been read a moment earlier).
  const dirty = rollup ? await dirtyHoursIn(db, q.projectId, rollup.from, rollup.to, MAX_DIRTY_HOURS + 1) : [];
  if (dirty.length > MAX_DIRTY_HOURS) rollup = null;
  const group = groupJoin(q.groupBy, q.foreignGroups);
  const a = q.thumbs;
  const hq: HourQuery | null = rollup ? { projectId: q.projectId, where, rollup, dirty } : null;
  // Thumbs of every matching trace (once each, whatever its groups): per hour from the rollups, else joined to each trace.
  const allThumbs = hq ? thumbHours(hq, a, groupJoin(null), false) : null;
  const thumbTotals = allThumbs
    ? sql`(SELECT coalesce(sum(up), 0) FROM (${allThumbs}) x)::int AS up, (SELECT coalesce(sum(down), 0) FROM (${allThumbs}) x)::int AS down`
    : sql`(SELECT count(*) FILTER (WHERE ${a.isThumbsUp}) FROM ${a} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${a.traceId} WHERE ${where})::int AS up,
                (SELECT count(*) FILTER (WHERE NOT ${a.isThumbsUp}) FROM ${a} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${a.traceId} WHERE ${where})::int AS down`;
  // Totals when a trace can be in several groups, read while the groups are.
  const totalsRead: Promise<Totals | null> =
    q.groupBy === 'model' || q.groupBy === 'label'
      ? rows<Totals>(
          db,
          hq
            ? sql`SELECT coalesce(sum(traces), 0)::int AS traces, coalesce(sum(spans), 0)::float8 AS spans, coalesce(sum(errors), 0)::int AS errors, coalesce(sum(cost), 0)::float8 AS cost,
                    coalesce(sum(prompt), 0)::float8 AS prompt, coalesce(sum(completion), 0)::float8 AS completion,
                    coalesce(sum(cached), 0)::float8 AS cached, coalesce(sum(reasoning), 0)::float8 AS reasoning, ${thumbTotals}
                  FROM (${hourSums(hq, groupJoin(null), false, false)}) u`
            : sql`SELECT ${SUMS}, ${thumbTotals} FROM traces WHERE ${where}`,
        ).then(([t]) => t)
      : Promise.resolve(null);
  // Awaited below; a failure before then is not an unhandled one.
  totalsRead.catch(() => {});
  // The sums per group and hour (for the groups with most traces), and with the latency sketch (for the series).
  const sums = hq ? hourSums(hq, ROLLUP_GROUPS(q.groupBy), q.groupBy === 'model', false) : null;
  const sketched = hq ? hourSums(hq, ROLLUP_GROUPS(q.groupBy), q.groupBy === 'model', true) : null;
  // Which groups keep a series of their own; the rest fold into "other".
  let keptOf = (_column: SQL) => sql`true`;
  if (q.groupBy !== null && q.maxGroups !== null) {
    const top = await rows<{ g: string | null }>(
      db,
      sums
        ? sql`SELECT g FROM (${sums}) u GROUP BY 1 ORDER BY sum(traces) DESC, 1 NULLS LAST LIMIT ${q.maxGroups}`
        : sql`SELECT ${group.column} AS g FROM traces ${group.join} WHERE ${where} GROUP BY 1 ORDER BY count(*) DESC, 1 NULLS LAST LIMIT ${q.maxGroups}`,
    );
    const named = top.map((t) => t.g).filter((g): g is string => g !== null);
    const withNull = top.some((t) => t.g === null);
    keptOf = (column) => sql`coalesce(${column} = ANY(${textArray(named)}) ${withNull ? sql`OR ${column} IS NULL` : sql``}, false)`;
  }
  const kept = keptOf(group.column);
  const k = sql`CASE WHEN ${kept} THEN ${group.column} END`;
  const v = q.verdicts;
  const s = q.scores;
  // Per hour from the rollups (each hour wholly in one bucket), else per trace.
  const hourBucket = hq ? bucketSql(hq.rollup.spec, sql`u.t`) : null;
  const histogram = sketched
    ? sql`SELECT ${keptOf(sql`u.g`)} AS kept, CASE WHEN ${keptOf(sql`u.g`)} THEN u.g END AS g, ${hourBucket} AS b, u.v, sum(n) AS n,
            sum(traces) AS traces, sum(spans) AS spans, sum(errors) AS errors, sum(cost) AS cost,
            sum(prompt) AS prompt, sum(completion) AS completion, sum(cached) AS cached, sum(reasoning) AS reasoning
          FROM (${sketched}) u GROUP BY 1, 2, 3, 4`
    : sql`SELECT ${kept} AS kept, ${k} AS g, ${q.bucket} AS b, ${LATENCY_BUCKET} AS v, ${HISTOGRAM_SUMS} FROM traces ${group.join} WHERE ${where} GROUP BY 1, 2, 3, 4`;
  // Independent statements: on PostgreSQL each on a connection of its own, at once.
  const [metrics, thumbs, verdicts, scores, totals] = await Promise.all([
    latencyHistogramSums(db, histogram),
    rows<ThumbsRow>(
      db,
      hq
        ? sql`SELECT ${keptOf(sql`u.g`)} AS kept, CASE WHEN ${keptOf(sql`u.g`)} THEN u.g END AS g, ${hourBucket} AS b, sum(up)::int AS up, sum(down)::int AS down
            FROM (${thumbHours(hq, a, ROLLUP_GROUPS(q.groupBy), q.groupBy === 'model')}) u GROUP BY 1, 2, 3`
        : sql`SELECT ${kept} AS kept, ${k} AS g, ${q.bucket} AS b,
            ${thumbCounts(a)}
          FROM ${a} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${a.traceId} ${group.join}
          WHERE ${where} GROUP BY 1, 2, 3`,
    ),
    rows<VerdictRow>(
      db,
      hq
        ? sql`SELECT name, evaluator, ${hourBucket} AS b, sum(passed)::int AS passed, sum(failed)::int AS failed FROM (${verdictHours(hq, v)}) u GROUP BY 1, 2, 3`
        : sql`SELECT ${v.name} AS name, ${v.evaluator} AS evaluator, ${q.bucket} AS b, count(*) FILTER (WHERE ${v.passed})::int AS passed, count(*) FILTER (WHERE NOT ${v.passed})::int AS failed
          FROM ${v} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${v.traceId}
          WHERE ${where} GROUP BY 1, 2, 3`,
    ),
    // Scores fall in their trace's bucket (as verdicts do), not at the time of the review.
    rows<ScoreBucketRow>(
      db,
      sql`SELECT ${s.configId} AS config_id, ${s.name} AS name, ${s.kind} AS kind, ${q.bucket} AS b, CASE WHEN ${s.kind} = 'categorical' THEN ${s.textValue} END AS category,
            count(*)::int AS n, sum(${s.numberValue})::float8 AS total
          FROM ${s} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${s.traceId}
          WHERE ${where} GROUP BY 1, 2, 3, 4, 5`,
    ),
    totalsRead,
  ]);
  return { metrics, thumbs, verdicts, scores, totals };
}

/**
 * Sums per bucket and group, and thumbs joined to the same traces: what a rule's windows or a
 * report's period count. Two statements, each one pass over the matching traces, without the
 * charts' latency percentiles (a sort per group) or their totals and verdicts, which these
 * readers do not use.
 */
export async function groupSums(
  db: Executor,
  q: Pick<AggregateQuery, 'projectId' | 'where' | 'bucket' | 'groupBy' | 'foreignGroups' | 'thumbs'>,
): Promise<{ metrics: Omit<MetricsRow, 'kept' | 'latency'>[]; thumbs: Omit<ThumbsRow, 'kept'>[] }> {
  const where = sql.join([sql`traces.project_id = ${q.projectId}`, ...q.where], sql` AND `);
  const group = groupJoin(q.groupBy, q.foreignGroups);
  const metrics = await rows<Omit<MetricsRow, 'kept' | 'latency'>>(db, sql`SELECT ${group.column} AS g, ${q.bucket} AS b, ${SUMS} FROM traces ${group.join} WHERE ${where} GROUP BY 1, 2`);
  const thumbs = await rows<Omit<ThumbsRow, 'kept'>>(
    db,
    sql`SELECT ${group.column} AS g, ${q.bucket} AS b, ${thumbCounts(q.thumbs)}
        FROM ${q.thumbs} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${q.thumbs.traceId} ${group.join}
        WHERE ${where} GROUP BY 1, 2`,
  );
  return { metrics, thumbs };
}

/** A per-trace column of the summary: latency and first-token time in ms, cost in USD, tokens (prompt + completion). */
export type TraceValueColumn = 'latency' | 'first_token' | 'cost' | 'tokens';
const VALUE_COLUMNS: Record<TraceValueColumn, SQL> = {
  latency: sql`traces.total_time_ms`,
  first_token: sql`traces.first_token_ms`,
  cost: sql`traces.total_cost`,
  tokens: sql`(coalesce(traces.prompt_tokens, 0) + coalesce(traces.completion_tokens, 0))`,
};

/**
 * One value per matching trace (and group: a trace with two models is in both), for the
 * percentiles and rank tests of alerts and reports; traces without the value (no first token,
 * no price) are left out. At most `limit` rows: the caller says how many it took.
 */
export async function traceValues(
  db: Executor,
  q: { projectId: string; where: SQL[]; groupBy: GroupBy; foreignGroups?: ForeignGroups; column: TraceValueColumn; limit: number },
): Promise<{ g: string | null; v: number }[]> {
  const where = sql.join([sql`traces.project_id = ${q.projectId}`, ...q.where, sql`${VALUE_COLUMNS[q.column]} IS NOT NULL`], sql` AND `);
  const group = groupJoin(q.groupBy, q.foreignGroups);
  const found = await rows<{ g: string | null; v: number }>(db, sql`SELECT ${group.column} AS g, ${VALUE_COLUMNS[q.column]}::float8 AS v FROM traces ${group.join} WHERE ${where} LIMIT ${q.limit}`);
  return found.map((r) => ({ g: r.g, v: Number(r.v) }));
}

/**
 * Evaluation results (rows trace_id, name, evaluator, status, passed, score from their owner)
 * of the matching traces, each with its group: a trace segment, or `evaluator` (the
 * evaluation's name). `evaluator`: only results of this name or evaluator path.
 */
export async function evaluationValues(
  db: Executor,
  q: { projectId: string; where: SQL[]; groupBy: GroupBy | 'evaluator'; foreignGroups?: ForeignGroups; results: EvaluationResultsRelation; evaluator: string | null; limit: number },
): Promise<{ g: string | null; name: string; status: string; passed: boolean | null; score: number | null }[]> {
  const e = q.results;
  const group = q.groupBy === 'evaluator' ? { join: sql``, column: sql`${e.name}` } : groupJoin(q.groupBy, q.foreignGroups);
  const where = sql.join([sql`traces.project_id = ${q.projectId}`, ...q.where, ...(q.evaluator === null ? [] : [sql`(${e.name} = ${q.evaluator} OR ${e.evaluator} = ${q.evaluator})`])], sql` AND `);
  const found = await rows<{ g: string | null; name: string; status: string; passed: boolean | null; score: number | null }>(
    db,
    sql`SELECT ${group.column} AS g, ${e.name} AS name, ${e.status} AS status, ${e.passed} AS passed, ${e.score}::float8 AS score
        FROM ${e} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${e.traceId} ${group.join}
        WHERE ${where} LIMIT ${q.limit}`,
  );
  return found.map((r) => ({ ...r, score: r.score === null ? null : Number(r.score) }));
}

/** What the users page sorts by. */
export type UserSort = 'user_id' | 'traces' | 'cost' | 'tokens' | 'errors' | 'thumbs_up' | 'thumbs_down' | 'first_seen' | 'last_seen';

export interface UsersQuery {
  projectId: string;
  /** The trace search's conditions on `traces` (dates included). */
  where: SQL[];
  /** The project's thumbs (the annotations module's relation). */
  thumbs: ThumbsRelation;
  /** Part of the user id, case-insensitive. */
  contains: string | null;
  sortBy: UserSort;
  direction: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export interface UserRow {
  user_id: string;
  traces: number;
  cost: number;
  prompt_tokens: number;
  completion_tokens: number;
  errors: number;
  thumbs_up: number;
  thumbs_down: number;
  first_seen: number;
  last_seen: number;
  /** Users matching, on every row (a window count). */
  total: number;
}

const USER_ORDER: Record<UserSort, string> = {
  user_id: 'u.user_id',
  traces: 'u.traces',
  cost: 'u.cost',
  tokens: '(u.prompt_tokens + u.completion_tokens)',
  errors: 'u.errors',
  thumbs_up: 'thumbs_up',
  thumbs_down: 'thumbs_down',
  first_seen: 'u.first_seen',
  last_seen: 'u.last_seen',
};

/**
 * The application's end users (traces.user_id) of a project: per user one pass over their
 * traces (count, cost, tokens, errors, first and last seen) and their thumbs joined through
 * the traces, sorted and paged in the database (offset paging: a users table is read page by
 * page, sorted by any column, and a few thousand rows deep at most).
 */
export async function aggregateUsers(db: Executor, q: UsersQuery): Promise<UserRow[]> {
  const conditions = [sql`traces.project_id = ${q.projectId}`, sql`traces.user_id IS NOT NULL`, ...q.where];
  if (q.contains) conditions.push(sql`traces.user_id ILIKE ${containsPattern(q.contains)}`);
  const where = sql.join(conditions, sql` AND `);
  const dir = sql.raw(q.direction === 'asc' ? 'ASC' : 'DESC');
  return rows<UserRow>(
    db,
    sql`WITH u AS (
          SELECT traces.user_id, count(*)::int AS traces, coalesce(sum(total_cost), 0)::float8 AS cost,
            coalesce(sum(prompt_tokens), 0)::float8 AS prompt_tokens, coalesce(sum(completion_tokens), 0)::float8 AS completion_tokens,
            count(*) FILTER (WHERE has_error)::int AS errors, min(started_at)::float8 AS first_seen, max(started_at)::float8 AS last_seen
          FROM traces WHERE ${where} GROUP BY traces.user_id
        ), th AS (
          SELECT traces.user_id, ${thumbCounts(q.thumbs)}
          FROM ${q.thumbs} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${q.thumbs.traceId}
          WHERE ${where} GROUP BY traces.user_id
        )
        SELECT u.*, coalesce(th.up, 0)::int AS thumbs_up, coalesce(th.down, 0)::int AS thumbs_down, (count(*) OVER ())::int AS total
        FROM u LEFT JOIN th ON th.user_id = u.user_id
        ORDER BY ${sql.raw(USER_ORDER[q.sortBy])} ${dir} NULLS LAST, u.user_id ${dir}
        LIMIT ${q.limit} OFFSET ${q.offset}`,
  );
}

/** The time a trace started (epoch ms): what a caller's buckets divide. */
const TRACE_STARTED_AT: SQL = sql`traces.started_at`;

/** Buckets of the traces' start: a BucketSpec's (a chart's interval, a rule's windows), or one bucket for a whole period starting at `period`. */
export type TraceBuckets = BucketSpec | { period: number };

/** The bucket a trace falls in, as the statements above take it (`bucket`). */
export function traceBucket(b: TraceBuckets): SQL {
  return 'period' in b ? wholePeriod(b.period) : bucketSql(b, TRACE_STARTED_AT);
}

/** One bucket for a whole period: every trace in the one starting at `start`. */
function wholePeriod(start: number): SQL {
  return sql`${start}::bigint`;
}

/**
 * One value per matching trace (latency, first-token time, cost, tokens), gathered per window
 * (`bucket`, from traceBucket) and group in one statement: one row per window and group with its
 * values (any order). Traces without the value are left out.
 */
export async function windowTraceValues(
  db: Executor,
  q: { projectId: string; where: SQL[]; groupBy: GroupBy; foreignGroups?: ForeignGroups; column: TraceValueColumn; bucket: SQL },
): Promise<{ b: number; g: string | null; v: number[] }[]> {
  const where = sql.join([sql`traces.project_id = ${q.projectId}`, ...q.where, sql`${VALUE_COLUMNS[q.column]} IS NOT NULL`], sql` AND `);
  const group = groupJoin(q.groupBy, q.foreignGroups);
  const found = await rows<{ b: number; g: string | null; v: number[] }>(
    db,
    sql`SELECT ${q.bucket} AS b, ${group.column} AS g, array_agg(${VALUE_COLUMNS[q.column]}::float8) AS v FROM traces ${group.join} WHERE ${where} GROUP BY 1, 2`,
  );
  return found.map((r) => ({ b: Number(r.b), g: r.g, v: r.v.map(Number) }));
}

/**
 * Evaluation results (rows trace_id, name, evaluator, status, passed, score from their owner)
 * of the matching traces, counted per window and group (a trace segment, or `evaluator`: the
 * evaluation's name): results that ran, errors, verdicts, passes, and the scores given.
 */
export async function windowEvaluationValues(
  db: Executor,
  q: { projectId: string; where: SQL[]; groupBy: GroupBy | 'evaluator'; foreignGroups?: ForeignGroups; results: EvaluationResultsRelation; evaluator: string | null; bucket: SQL },
): Promise<{ b: number; g: string | null; ran: number; errors: number; verdicts: number; passed: number; scores: number[] }[]> {
  const e = q.results;
  const group = q.groupBy === 'evaluator' ? { join: sql``, column: sql`${e.name}` } : groupJoin(q.groupBy, q.foreignGroups);
  const where = sql.join([sql`traces.project_id = ${q.projectId}`, ...q.where, ...(q.evaluator === null ? [] : [sql`(${e.name} = ${q.evaluator} OR ${e.evaluator} = ${q.evaluator})`])], sql` AND `);
  const found = await rows<{ b: number; g: string | null; ran: number; errors: number; verdicts: number; passed: number; scores: number[] | null }>(
    db,
    sql`SELECT ${q.bucket} AS b, ${group.column} AS g, count(*)::int AS ran, count(*) FILTER (WHERE ${e.status} = 'error')::int AS errors,
          count(*) FILTER (WHERE ${e.status} = 'processed' AND ${e.passed} IS NOT NULL)::int AS verdicts,
          count(*) FILTER (WHERE ${e.status} = 'processed' AND ${e.passed})::int AS passed,
          array_agg(${e.score}::float8) FILTER (WHERE ${e.status} = 'processed' AND ${e.score} IS NOT NULL) AS scores
        FROM ${e} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${e.traceId} ${group.join}
        WHERE ${where} GROUP BY 1, 2`,
  );
  return found.map((r) => ({ b: Number(r.b), g: r.g, ran: Number(r.ran), errors: Number(r.errors), verdicts: Number(r.verdicts), passed: Number(r.passed), scores: (r.scores ?? []).map(Number) }));
}

/**
 * Review scores of one config (rows trace_id, config_id, name, kind, number_value, text_value
 * from their owner) on the matching traces, per window (the trace's, as the charts count them):
 * how many scores, their sum, how many in `category`, and each scored trace's mean (several
 * reviewers of one trace are one value: what a rank test compares).
 */
export async function windowScoreValues(
  db: Executor,
  q: { projectId: string; where: SQL[]; scores: ScoresRelation; configId: string; category: string | null; bucket: SQL },
): Promise<{ b: number; kind: string; count: number; total: number; inCategory: number; traceMeans: number[] }[]> {
  const s = q.scores;
  const where = sql.join([sql`traces.project_id = ${q.projectId}`, ...q.where, sql`${s.configId} = ${q.configId}`], sql` AND `);
  const found = await rows<{ b: number; kind: string; count: number; total: number | null; in_category: number; trace_means: number[] | null }>(
    db,
    sql`SELECT b, max(kind) AS kind, sum(n)::int AS count, sum(total)::float8 AS total, sum(in_category)::int AS in_category,
          array_agg(total / numbers) FILTER (WHERE numbers > 0) AS trace_means
        FROM (SELECT ${q.bucket} AS b, ${s.traceId} AS trace_id, max(${s.kind}) AS kind, count(*) AS n, sum(${s.numberValue})::float8 AS total, count(${s.numberValue}) AS numbers,
                count(*) FILTER (WHERE ${s.textValue} = ${q.category ?? ''}) AS in_category
              FROM ${s} JOIN traces ON traces.project_id = ${q.projectId} AND traces.trace_id = ${s.traceId}
              WHERE ${where} GROUP BY 1, 2) per_trace
        GROUP BY 1`,
  );
  return found.map((r) => ({ b: Number(r.b), kind: r.kind, count: Number(r.count), total: Number(r.total ?? 0), inCategory: Number(r.in_category), traceMeans: (r.trace_means ?? []).map(Number) }));
}
