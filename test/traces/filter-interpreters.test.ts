import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { annotatedTraceCondition } from '../../src/modules/annotations/index.ts';
import { evaluationTraceCondition } from '../../src/modules/evaluators/index.ts';
import { matchesTraceFilter, traceFilterSql, type TraceFilter, type TraceSummary } from '../../src/modules/traces/index.ts';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';

const T0 = Date.parse('2026-11-20T12:00:00Z');

/** Traces that tell the filter's keys apart: each case below selects a different set. */
const TRACES = [
  {
    id: 'f-alice',
    metadata: { user_id: 'alice', thread_id: 'th-1', customer_id: 'acme', labels: ['prod', 'beta'], env: 'prod', tier: 2, paid: true },
    spans: [
      { span_id: 'a1', type: 'agent', name: 'run' },
      { span_id: 'a2', parent_id: 'a1', type: 'llm', model: 'gpt-4o-mini', metrics: { prompt_tokens: 10, completion_tokens: 2 } },
    ],
  },
  {
    id: 'f-bob',
    metadata: { user_id: 'bob', thread_id: 'th-2', customer_id: 'globex', labels: ['dev'], env: 'dev', tier: 1, paid: false },
    spans: [
      { span_id: 'b1', type: 'llm', model: 'openai/gpt-4o', error: { has_error: true, message: 'rate limited', stacktrace: [] } },
      { span_id: 'b2', parent_id: 'b1', type: 'tool', name: 'lookup' },
    ],
  },
  {
    id: 'f-carol',
    metadata: { user_id: 'carol', thread_id: 'th-1', labels: ['prod'], env: 'prod' },
    spans: [{ span_id: 'c1', type: 'llm', model: 'claude-3-5-sonnet-20241022' }],
  },
  {
    id: 'f-anon',
    metadata: {},
    spans: [{ span_id: 'n1', type: 'tool', name: 'cron' }],
  },
];

/**
 * One table of cases for both interpreters: the filter, and the traces it selects.
 * `sqlOnly`: keys whose tables other modules own (a summary alone cannot decide them).
 */
const CASES: { name: string; filter: TraceFilter; selects: string[]; sqlOnly?: boolean }[] = [
  { name: 'no keys', filter: {}, selects: ['f-alice', 'f-bob', 'f-carol', 'f-anon'] },
  { name: 'user_id, one', filter: { user_id: 'alice' }, selects: ['f-alice'] },
  { name: 'user_id, a list', filter: { user_id: ['bob', 'carol', 'nobody'] }, selects: ['f-bob', 'f-carol'] },
  { name: 'thread_id', filter: { thread_id: 'th-1' }, selects: ['f-alice', 'f-carol'] },
  { name: 'customer_id', filter: { customer_id: ['globex'] }, selects: ['f-bob'] },
  { name: 'labels: any of', filter: { labels: ['beta', 'dev'] }, selects: ['f-alice', 'f-bob'] },
  { name: 'labels: one', filter: { labels: 'prod' }, selects: ['f-alice', 'f-carol'] },
  { name: 'model: as sent', filter: { model: 'gpt-4o-mini' }, selects: ['f-alice'] },
  { name: 'model: provider prefix and case', filter: { model: ['OpenAI/GPT-4o-mini'] }, selects: ['f-alice'] },
  { name: 'model: a prefixed span model', filter: { model: 'gpt-4o' }, selects: ['f-bob'] },
  { name: 'model: a snapshot family', filter: { model: 'claude-3-5-sonnet' }, selects: ['f-carol'] },
  { name: 'model: unknown', filter: { model: 'no-such-model' }, selects: [] },
  { name: 'span_type', filter: { span_type: 'tool' }, selects: ['f-bob', 'f-anon'] },
  { name: 'span_type, a list', filter: { span_type: ['agent', 'retriever'] }, selects: ['f-alice'] },
  { name: 'has_error: true', filter: { has_error: true }, selects: ['f-bob'] },
  { name: 'has_error: false', filter: { has_error: false }, selects: ['f-alice', 'f-carol', 'f-anon'] },
  { name: 'metadata: a string', filter: { metadata: { env: 'prod' } }, selects: ['f-alice', 'f-carol'] },
  { name: 'metadata: a number', filter: { metadata: { tier: 2 } }, selects: ['f-alice'] },
  { name: 'metadata: a boolean', filter: { metadata: { paid: false } }, selects: ['f-bob'] },
  { name: 'metadata: a number is not its string', filter: { metadata: { tier: '2' } }, selects: [] },
  { name: 'metadata: every pair', filter: { metadata: { env: 'prod', tier: 2 } }, selects: ['f-alice'] },
  { name: 'keys together: all must hold', filter: { thread_id: 'th-1', labels: 'prod', has_error: false, model: 'claude-3-5-sonnet-20241022' }, selects: ['f-carol'] },
  { name: 'keys together: none holds', filter: { user_id: 'alice', has_error: true }, selects: [] },
  { name: 'has_annotation: true', filter: { has_annotation: true }, selects: ['f-bob'], sqlOnly: true },
  { name: 'has_annotation: false', filter: { has_annotation: false, labels: 'prod' }, selects: ['f-alice', 'f-carol'], sqlOnly: true },
  { name: 'evaluation: by evaluator', filter: { evaluation: { evaluator: 'llm/competitor_blocklist' } }, selects: ['f-carol'], sqlOnly: true },
  { name: 'evaluation: failed', filter: { evaluation: { passed: false } }, selects: ['f-carol'], sqlOnly: true },
  { name: 'evaluation: passed', filter: { evaluation: { passed: true } }, selects: [], sqlOnly: true },
];

describe.each(databaseKinds)('the trace filter: SQL, the search route and in memory agree (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  const summaries = new Map<string, TraceSummary>();
  beforeAll(async () => {
    t = await startApp(kind, { clock: new ManualClock(T0 + 60_000) });
    key = t.creds.projectApiKey;
    // The summaries ingest computes: what monitors match in memory (read as a module's extension would).
    t.app.services.traces.ctx.extensions.push({
      beforeCommit: async (_tx, batch) => {
        for (const s of batch.summaries) summaries.set(s.trace_id, s);
      },
    });
    for (const [i, trace] of TRACES.entries()) {
      const at = T0 + i * 1000;
      const res = await t.request('POST', '/api/collector', {
        authToken: key,
        body: {
          trace_id: trace.id,
          metadata: trace.metadata,
          spans: trace.spans.map((s) => ({ ...s, timestamps: { started_at: at, finished_at: at + 500 } })),
        },
      });
      expect(res.status).toBe(200);
    }
    expect((await t.request('POST', '/api/annotations/trace/f-bob', { token: key, body: { comment: 'slow', isThumbsUp: false } })).status).toBe(200);
    const evaluated = await t.request('POST', '/api/evaluations/llm/competitor_blocklist/evaluate', {
      authToken: key,
      body: { data: { output: 'we beat OpenAI' }, trace_id: 'f-carol' },
    });
    expect(evaluated.status).toBe(200);
  });
  afterAll(() => t.close());

  const sorted = (ids: string[]) => [...ids].sort();

  it.each(CASES)('$name', async ({ filter, selects, sqlOnly }) => {
    // SQL: the conditions alone, on the project's rows.
    const conditions = traceFilterSql(filter, [{ has_annotation: annotatedTraceCondition, evaluation: evaluationTraceCondition }]);
    const found = await rows<{ trace_id: string }>(
      t.db.orm,
      sql`SELECT trace_id FROM traces WHERE ${sql.join([sql`project_id = ${t.creds.project.id}`, ...conditions], sql` AND `)}`,
    );
    expect(sorted(found.map((r) => r.trace_id)), 'SQL').toEqual(sorted(selects));

    // The search route (app.ts wires the other modules' conditions).
    const res = await t.request('POST', '/api/trace/search', { token: key, body: { filters: filter, pageSize: 100 } });
    expect(res.status).toBe(200);
    expect(sorted(res.body.traces.map((tr: { trace_id: string }) => tr.trace_id)), 'search route').toEqual(sorted(selects));

    // In memory, on the summaries ingest computed (what a monitor's filter reads).
    if (sqlOnly) return;
    expect(summaries.size).toBe(TRACES.length);
    const matched = [...summaries.values()].filter((s) => matchesTraceFilter(filter, s)).map((s) => s.trace_id);
    expect(sorted(matched), 'in memory').toEqual(sorted(selects));
  });

  it('a monitor takes only the keys a summary decides', async () => {
    const res = await t.request('POST', '/api/monitors', {
      token: key,
      body: { name: 'm', evaluator: 'llm/competitor_blocklist', filters: { has_annotation: true } },
    });
    expect(res.status).toBe(400);
  });
});
