import { sql, type SQL } from 'drizzle-orm';
import { rows, type Executor } from '../../db/index.ts';

export type GroupBy = 'model' | 'label' | 'user' | null;

export interface AggregateQuery {
  projectId: string;
  /** The trace search's conditions on `traces` (dates included). */
  where: SQL[];
  /** Bucket start of `traces.started_at`. */
  bucket: SQL;
  groupBy: GroupBy;
  maxGroups: number;
  /** Rows (trace_id, is_thumbs_up) of the project's annotations. */
  thumbs: SQL;
  /** Rows (trace_id, name, evaluator, passed) of the project's evaluations that gave a verdict. */
  verdicts: SQL;
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
  /** [p50, p95, p99] of total_time_ms */
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

export interface AggregateResult {
  metrics: MetricsRow[];
  thumbs: ThumbsRow[];
  verdicts: VerdictRow[];
  totals: Omit<MetricsRow, 'kept' | 'g' | 'b' | 'latency'> & { up: number; down: number };
}

/**
 * The group a trace row falls in; a trace with several models or labels counts once in each
 * (with its whole cost and tokens), one with none in the null group.
 */
function groupJoin(groupBy: GroupBy): { join: SQL; column: SQL } {
  const each = (array: string) => ({
    join: sql.raw(`CROSS JOIN LATERAL unnest(CASE WHEN cardinality(traces.${array}) = 0 THEN ARRAY[NULL]::text[] ELSE traces.${array} END) AS grp(g)`),
    column: sql`grp.g`,
  });
  if (groupBy === 'model') return each('normalized_models');
  if (groupBy === 'label') return each('labels');
  if (groupBy === 'user') return { join: sql``, column: sql`traces.user_id` };
  return { join: sql``, column: sql`NULL::text` };
}

const SUMS = sql.raw(`count(*)::int AS traces, coalesce(sum(span_count), 0)::float8 AS spans,
  count(*) FILTER (WHERE has_error)::int AS errors, coalesce(sum(total_cost), 0)::float8 AS cost,
  coalesce(sum(prompt_tokens), 0)::float8 AS prompt, coalesce(sum(completion_tokens), 0)::float8 AS completion,
  coalesce(sum(cached_input_tokens), 0)::float8 AS cached, coalesce(sum(reasoning_tokens), 0)::float8 AS reasoning`);

/**
 * One statement over the per-trace summary table: the matching traces are read once (base),
 * spread over their groups, the groups beyond `maxGroups` (by traces) folded together, and
 * summed per group and bucket; thumbs and evaluation verdicts join those traces.
 */
export async function aggregate(db: Executor, q: AggregateQuery): Promise<AggregateResult> {
  const where = sql.join([sql`traces.project_id = ${q.projectId}`, ...q.where], sql` AND `);
  const group = groupJoin(q.groupBy);
  const [r] = await rows<{ metrics: MetricsRow[] | null; thumbs: ThumbsRow[] | null; verdicts: VerdictRow[] | null; totals: AggregateResult['totals'] }>(
    db,
    sql`WITH base AS MATERIALIZED (
          SELECT traces.trace_id, ${q.bucket} AS b, ${group.column} AS g, span_count, has_error, total_cost, prompt_tokens,
            completion_tokens, cached_input_tokens, reasoning_tokens, total_time_ms
          FROM traces ${group.join}
          WHERE ${where}
        ),
        top AS (SELECT g FROM base GROUP BY g ORDER BY count(*) DESC, g NULLS LAST LIMIT ${q.maxGroups}),
        grouped AS MATERIALIZED (
          SELECT base.*, EXISTS (SELECT 1 FROM top WHERE top.g IS NOT DISTINCT FROM base.g) AS kept FROM base
        ),
        metrics AS (
          SELECT kept, CASE WHEN kept THEN g END AS g, b, ${SUMS},
            percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY total_time_ms) AS latency
          FROM grouped GROUP BY 1, 2, 3
        ),
        traces_once AS (${q.groupBy === 'model' || q.groupBy === 'label' ? sql`SELECT DISTINCT ON (trace_id) * FROM base ORDER BY trace_id` : sql`SELECT * FROM base`}),
        thumbs AS (
          SELECT kept, CASE WHEN kept THEN g END AS g, b, count(*) FILTER (WHERE a.is_thumbs_up)::int AS up,
            count(*) FILTER (WHERE NOT a.is_thumbs_up)::int AS down
          FROM grouped JOIN (${q.thumbs}) a ON a.trace_id = grouped.trace_id GROUP BY 1, 2, 3
        ),
        verdicts AS (
          SELECT v.name, v.evaluator, t.b, count(*) FILTER (WHERE v.passed)::int AS passed, count(*) FILTER (WHERE NOT v.passed)::int AS failed
          FROM traces_once t JOIN (${q.verdicts}) v ON v.trace_id = t.trace_id GROUP BY 1, 2, 3
        )
        SELECT (SELECT json_agg(metrics) FROM metrics) AS metrics,
          (SELECT json_agg(thumbs) FROM thumbs) AS thumbs,
          (SELECT json_agg(verdicts) FROM verdicts) AS verdicts,
          (SELECT row_to_json(s) FROM (
            SELECT ${SUMS},
              (SELECT count(*) FILTER (WHERE a.is_thumbs_up) FROM traces_once t JOIN (${q.thumbs}) a ON a.trace_id = t.trace_id)::int AS up,
              (SELECT count(*) FILTER (WHERE NOT a.is_thumbs_up) FROM traces_once t JOIN (${q.thumbs}) a ON a.trace_id = t.trace_id)::int AS down
            FROM traces_once) s) AS totals`,
  );
  return { metrics: json(r.metrics) ?? [], thumbs: json(r.thumbs) ?? [], verdicts: json(r.verdicts) ?? [], totals: json(r.totals) };
}

/** json columns arrive parsed from both drivers; text would be parsed here. */
function json<T>(v: T | string): T {
  return typeof v === 'string' ? (JSON.parse(v) as T) : v;
}
