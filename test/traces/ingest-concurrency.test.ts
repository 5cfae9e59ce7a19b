import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { AppError } from '../../src/platform/errors.ts';
import { databaseKinds, useProjectApp, type TestApp } from '../support/harness.ts';

const T0 = Date.parse('2026-11-20T12:00:00Z');

const span = (spanId: string, output: string, offset = 0) => ({
  span_id: spanId,
  type: 'llm',
  model: 'gpt-4o-mini',
  input: { type: 'text', value: `question ${spanId}` },
  output: { type: 'text', value: output },
  metrics: { prompt_tokens: 10, completion_tokens: 5 },
  timestamps: { started_at: T0 + offset, finished_at: T0 + offset + 100 },
});

describe.each(databaseKinds)('ingest under concurrency, odd text, and deleted projects (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  useProjectApp(kind, (app) => ({ t, key } = app));
  const send = (body: unknown, token = key) => t.request('POST', '/api/collector', { authToken: token, body });
  const count = async (query: ReturnType<typeof sql>) => Number((await rows<{ n: number }>(t.db.orm, query))[0].n);

  it('many requests at once, spans of the same traces in each: every span lands once, every trace is created once', async () => {
    const traces = ['conc-0', 'conc-1', 'conc-2', 'conc-3', 'conc-4'];
    const requests = 24;
    // Request r carries span r of every trace; the last four repeat the first four with new outputs.
    const bodies = Array.from({ length: requests }, (_, r) => {
      const n = r < 20 ? r : r - 20;
      return traces.map((id) => ({ trace_id: id, spans: [span(`${id}-s${n}`, r < 20 ? `first ${n}` : `replaced ${n}`, n)] }));
    }).flat();
    const answers = await Promise.all(bodies.map((b) => send(b)));
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
    for (const id of traces) {
      const d = (await t.request('GET', `/api/trace/${id}`, { token: key })).body;
      expect(d.span_count).toBe(20);
      expect(d.spans).toHaveLength(20);
      expect(d.metrics).toMatchObject({ prompt_tokens: 200, completion_tokens: 100, total_time_ms: 119 });
      // Each repeat either replaced its span or was replaced by it: one version, never two.
      for (let n = 0; n < 4; n++) expect([`first ${n}`, `replaced ${n}`]).toContain(d.spans.find((s: { span_id: string }) => s.span_id === `${id}-s${n}`).output.value);
    }
    expect(await count(sql`SELECT count(*)::int AS n FROM spans WHERE trace_id LIKE 'conc-%'`)).toBe(100);
    expect(await count(sql`SELECT count(*)::int AS n FROM events WHERE type = 'trace.created' AND data->>'trace_id' LIKE 'conc-%'`)).toBe(5);
    const search = await t.request('POST', '/api/trace/search', { token: key, body: { query: 'question', filters: { model: 'gpt-4o-mini' }, pageSize: 100 } });
    expect(search.body.traces.map((x: { trace_id: string }) => x.trace_id).sort()).toEqual(traces);
  });

  it('an OTLP request larger than one transaction piece (a 600-span trace among 40 small ones) lands whole, each trace summarized from all its spans and created once', async () => {
    const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
    const otlpSpan = (trace: number, i: number) => ({
      traceId: hex(0xb1ece000 + trace, 32),
      spanId: hex(trace * 10_000 + i + 1, 16),
      name: 'chat',
      kind: 3,
      startTimeUnixNano: String((T0 + i) * 1e6),
      endTimeUnixNano: String((T0 + i + 100) * 1e6),
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
        { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } },
        { key: 'gen_ai.usage.input_tokens', value: { intValue: 10 } },
        { key: 'gen_ai.usage.output_tokens', value: { intValue: 5 } },
      ],
    });
    // Trace 0 (600 spans) in the middle of the request: the pieces before and after it hold small traces.
    const traces = [...Array.from({ length: 20 }, (_, k) => k + 1), 0, ...Array.from({ length: 20 }, (_, k) => k + 21)];
    const spans = traces.flatMap((k) => Array.from({ length: k === 0 ? 600 : 5 }, (_, i) => otlpSpan(k, i)));
    const res = await t.request('POST', '/v1/traces', { authToken: key, body: { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'pieces' }, spans }] }] } });
    expect(res.status).toBe(200);
    const big = (await t.request('GET', `/api/trace/${hex(0xb1ece000, 32)}`, { token: key })).body;
    expect(big.span_count).toBe(600);
    expect(big.metrics).toMatchObject({ prompt_tokens: 6000, completion_tokens: 3000, total_time_ms: 699 });
    for (const k of [1, 20, 21, 40]) expect((await t.request('GET', `/api/trace/${hex(0xb1ece000 + k, 32)}`, { token: key })).body.span_count).toBe(5);
    const ours = `${hex(0xb1ece000, 32).slice(0, 30)}%`;
    expect(await count(sql`SELECT count(*)::int AS n FROM spans WHERE trace_id LIKE ${ours}`)).toBe(800);
    expect(await count(sql`SELECT count(*)::int AS n FROM events WHERE type = 'trace.created' AND data->>'trace_id' LIKE ${ours}`)).toBe(41);
  });

  it('NUL characters, which PostgreSQL text cannot hold, arrive as U+FFFD instead of failing the batch', async () => {
    const res = await send({
      trace_id: 'nul-text',
      spans: [{ ...span('nul-1', 'before\u0000after'), name: 'tool\u0000call', params: { stop: ['\u0000'] } }],
      metadata: { user_id: 'user\u0000x', labels: ['a\u0000b'], note: 'literal \\u0000 stays' },
    });
    expect(res.status).toBe(200);
    const d = (await t.request('GET', '/api/trace/nul-text', { token: key })).body;
    expect(d.output.value).toBe('before\uFFFDafter');
    expect(d.metadata).toMatchObject({ user_id: 'user\uFFFDx', labels: ['a\uFFFDb'], note: 'literal \\u0000 stays' });
    expect(d.spans[0]).toMatchObject({ name: 'tool\uFFFDcall', params: { stop: ['\uFFFD'] } });
  });

  it('deleting a project deletes its traces and spans; a write racing the deletion is refused, not orphaned', async () => {
    const admin = t.creds.adminApiKey;
    const created = await t.request('POST', '/api/projects', { token: admin, body: { name: 'Short-lived' } });
    const projectId = created.body.project.id as string;
    expect((await send({ trace_id: 'doomed', spans: [span('doomed-1', 'bye')] }, created.body.token)).status).toBe(200);
    expect(await count(sql`SELECT count(*)::int AS n FROM spans WHERE project_id = ${projectId}`)).toBe(1);

    expect((await t.request('DELETE', `/api/projects/${projectId}`, { token: admin })).status).toBe(200);
    expect(await count(sql`SELECT count(*)::int AS n FROM spans WHERE project_id = ${projectId}`)).toBe(0);
    expect(await count(sql`SELECT count(*)::int AS n FROM traces WHERE project_id = ${projectId}`)).toBe(0);
    expect((await send({ trace_id: 'late', spans: [span('late-1', 'x')] }, created.body.token)).status).toBe(401);

    // A request authenticated just before the deletion reaches the write after it.
    const late = t.app.services.traces.ingest(t.creds.organization.id, projectId, [
      {
        trace_id: 'late',
        span_id: 'late-1',
        parent_id: null,
        name: null,
        type: 'span',
        model: null,
        vendor: null,
        started_at: T0,
        finished_at: T0 + 1,
        first_token_at: null,
        params: {},
        input: null,
        output: null,
        error: null,
        metrics: { prompt_tokens: null, completion_tokens: null, cached_input_tokens: null, reasoning_tokens: null, tokens_estimated: false, cost: null },
        trace_metadata: {},
        attributes: {},
        resource: {},
        events: [],
        links: [],
        status: { code: 'unset', message: null },
        kind: 'internal',
        scope: { name: null, version: null },
      },
    ]);
    await expect(late).rejects.toSatisfy((e: unknown) => e instanceof AppError && e.status === 404 && e.code === 'project_not_found');
    expect(await count(sql`SELECT count(*)::int AS n FROM spans WHERE project_id = ${projectId}`)).toBe(0);
  });
});
