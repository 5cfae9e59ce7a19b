/**
 * The trace filter: one schema and its two interpreters.
 *
 * - `toSql(filter)` (filter-store.ts, the SQL interpreter): conditions on rows of `traces`,
 *   for the search, the new-traces poll and analytics (so a dashboard and the list agree).
 * - `matches(filter, summary)`: the same decision in memory on a trace summary, for monitors,
 *   which pick incoming traces inside the ingest transaction without a query.
 *
 * `has_annotation`, `evaluation`, `score` and `topic` read other modules' tables: their conditions come from
 * those modules (ForeignFilterConditions, filter-store.ts, each module's TraceExtension), and a summary alone cannot decide
 * them, so monitors take the summary filter (the trace filter without those four).
 * test/traces/filter-interpreters.test.ts runs one table of cases through both interpreters.
 *
 * The web app type-checks this file (through schemas.ts): it imports only zod, drizzle and
 * pure files, never the database or Node.
 */
import { z } from 'zod';
import { canonicalModelName } from './costs/prices.ts';

const stringOrList = z.union([z.string().min(1).max(500), z.array(z.string().min(1).max(500)).min(1).max(100)]);
const metadataFilter = z.record(z.string().min(1).max(200), z.union([z.string().max(1000), z.number(), z.boolean()]));

/** The keys a trace summary alone decides. */
const summaryFields = {
  user_id: stringOrList.optional(),
  thread_id: stringOrList.optional(),
  customer_id: stringOrList.optional(),
  labels: stringOrList.optional(),
  model: stringOrList.optional(),
  span_type: stringOrList.optional(),
  has_error: z.boolean().optional(),
  metadata: metadataFilter.optional(),
};

/** The filter of a trace search (POST /api/trace/search `filters`, analytics, the new-traces poll). */
export const traceFilterSchema = z.strictObject({
  user_id: summaryFields.user_id,
  thread_id: summaryFields.thread_id,
  customer_id: summaryFields.customer_id,
  labels: stringOrList.optional().describe('Any of these labels'),
  model: stringOrList.optional().describe('Any span used one of these models'),
  span_type: stringOrList.optional().describe('Any span has one of these types (llm, tool, agent, ...)'),
  has_error: summaryFields.has_error,
  has_annotation: z.boolean().optional(),
  evaluation: z
    .strictObject({
      evaluator: z.string().min(1).max(200).optional().describe('Evaluator path or name, e.g. pii/pii_detection'),
      passed: z.boolean().optional(),
      status: z.enum(['processed', 'skipped', 'error']).optional(),
    })
    .optional(),
  metadata: metadataFilter.optional().describe('key = value on trace metadata'),
  score: z
    .strictObject({
      configId: z.string().min(1).max(128).describe('a score config (GET /api/score-configs)'),
      min: z.number().optional().describe('numeric: at least'),
      max: z.number().optional().describe('numeric: at most'),
      value: z.union([z.string().max(100), z.boolean()]).optional().describe('categorical: this category; boolean: true or false'),
    })
    .optional()
    .describe('Traces with a score of this config (any of their annotations), within min..max or equal to value'),
  topic: stringOrList.optional().describe('Traces in any of these topics (topic ids, GET /api/topics)'),
});

/** The trace filter without the keys other modules decide: what `matches` reads (monitors' filters). */
export const summaryFilterSchema = z.strictObject(summaryFields);

export type TraceFilter = z.infer<typeof traceFilterSchema>;
export type SummaryFilter = z.infer<typeof summaryFilterSchema>;
export type EvaluationFilter = NonNullable<TraceFilter['evaluation']>;
export type ScoreFilter = NonNullable<TraceFilter['score']>;

/** What `matches` reads of a trace summary. */
export interface FilterableSummary {
  user_id: string | null;
  thread_id: string | null;
  customer_id: string | null;
  labels: string[];
  /** Normalized model names and their snapshot families (TraceSummary.model_names). */
  model_names: string[];
  span_types: string[];
  has_error: boolean;
  metadata: Record<string, unknown>;
}

export const asList = (v: string | string[]) => (Array.isArray(v) ? v : [v]);

/** A model filter as both interpreters read it: what was sent (`openai/gpt-4o-mini`, `GPT-4o-mini`) finds its normalized name. */
export function modelNames(wanted: string | string[]): string[] {
  return asList(wanted).map((m) => canonicalModelName(m) ?? m);
}

/** Whether a trace summary passes the filter (null: every trace does). */
export function matches(f: SummaryFilter | null | undefined, s: FilterableSummary): boolean {
  if (!f) return true;
  const anyOf = (wanted: string | string[] | undefined, actual: (string | null)[]) => {
    if (wanted === undefined) return true;
    const list = asList(wanted);
    return actual.some((a) => a !== null && list.includes(a));
  };
  return (
    anyOf(f.user_id, [s.user_id]) &&
    anyOf(f.thread_id, [s.thread_id]) &&
    anyOf(f.customer_id, [s.customer_id]) &&
    anyOf(f.labels, s.labels) &&
    anyOf(f.model === undefined ? undefined : modelNames(f.model), s.model_names) &&
    anyOf(f.span_type, s.span_types) &&
    (f.has_error === undefined || f.has_error === s.has_error) &&
    Object.entries(f.metadata ?? {}).every(([k, v]) => s.metadata[k] === v)
  );
}
