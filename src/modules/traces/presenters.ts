import type { z } from 'zod';
import type { traceViewSchema } from './schemas.ts';
import type * as store from './store.ts';

export type TraceDetail = ReturnType<typeof traceView> & {
  spans: (Record<string, unknown> & { span_id: string; parent_id: string | null; type: string; input: unknown; output: unknown })[];
  evaluations: Record<string, unknown>[];
};

export function traceView(t: store.TraceRow) {
  return {
    trace_id: t.trace_id,
    project_id: t.project_id,
    metadata: {
      ...t.metadata,
      ...(t.user_id ? { user_id: t.user_id } : {}),
      ...(t.thread_id ? { thread_id: t.thread_id } : {}),
      ...(t.customer_id ? { customer_id: t.customer_id } : {}),
      labels: t.labels,
    },
    timestamps: { started_at: t.started_at, inserted_at: t.inserted_at, updated_at: t.updated_at },
    input: { value: t.input ?? '' },
    output: { value: t.output ?? '' },
    metrics: {
      first_token_ms: t.first_token_ms,
      total_time_ms: t.total_time_ms,
      prompt_tokens: t.prompt_tokens,
      completion_tokens: t.completion_tokens,
      tokens_estimated: t.tokens_estimated,
      total_cost: t.total_cost,
    },
    error: t.error,
    indexing_md5s: t.indexing_md5 ? [t.indexing_md5] : [],
    models: t.models,
    span_types: t.span_types,
    span_count: t.span_count,
  };
}

export function traceViewPresenter(v: store.TraceViewRow): z.output<typeof traceViewSchema> {
  return {
    id: v.id,
    name: v.name,
    search: v.search as Record<string, string>,
    columns: v.columns as string[],
    created_by: v.createdBy,
    created_at: Number(v.createdAt),
    updated_at: Number(v.updatedAt),
  };
}
