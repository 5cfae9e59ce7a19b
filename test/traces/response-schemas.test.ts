import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { newTracesResponseSchema, searchResponseSchema, spanSchema, traceDetailSchema, traceOutlineSchema } from '../../src/modules/traces/schemas.ts';

/**
 * The hot trace reads skip response validation (traces/routes.ts: plainJson): the service
 * writes their JSON itself. This checks a representative answer of each against the schema
 * the OpenAPI document gives for it: it parses, and the schema drops nothing (no field the
 * document does not name).
 */
const T0 = Date.parse('2026-11-20T12:00:00Z');

const trace = {
  trace_id: 'schema-trace',
  spans: [
    {
      span_id: 'schema-root',
      type: 'agent',
      name: 'answer',
      input: { type: 'text', value: 'what is the weather?' },
      output: { type: 'text', value: 'sunny' },
      timestamps: { started_at: T0, finished_at: T0 + 2000 },
    },
    {
      span_id: 'schema-llm',
      parent_id: 'schema-root',
      type: 'llm',
      model: 'gpt-4o-mini',
      input: { type: 'chat_messages', value: [{ role: 'user', content: 'what is the weather?' }] },
      output: { type: 'chat_messages', value: [{ role: 'assistant', content: 'sunny' }] },
      metrics: { prompt_tokens: 100, completion_tokens: 20 },
      params: { temperature: 0.3 },
      timestamps: { started_at: T0 + 100, first_token_at: T0 + 400, finished_at: T0 + 1500 },
    },
    {
      span_id: 'schema-tool',
      parent_id: 'schema-root',
      type: 'tool',
      name: 'weather',
      input: { type: 'json', value: { city: 'Oslo' } },
      error: { has_error: true, message: 'timeout', stacktrace: ['at weather()'] },
      timestamps: { started_at: T0 + 1600, finished_at: T0 + 1900 },
    },
  ],
  metadata: { user_id: 'alice', thread_id: 'th-1', labels: ['prod'], customer: 'acme' },
};

function expectMatches(schema: z.ZodType, body: unknown) {
  const parsed = schema.safeParse(body);
  expect(parsed.error, JSON.stringify(parsed.error?.issues.slice(0, 3))).toBeUndefined();
  expect(parsed.data).toEqual(body);
}

describe.each(appDatabaseKinds)('trace answers that skip response validation match their schemas (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let shareToken: string;
  beforeAll(async () => {
    t = await startApp(kind);
    key = t.creds.projectApiKey;
    expect((await t.request('POST', '/api/collector', { token: key, body: trace })).status).toBe(200);
    const shared = await t.request('POST', '/api/trace/schema-trace/share', { token: key });
    shareToken = shared.body.path.split('/')[2];
  });
  afterAll(() => t.close());

  it('search and search/new', async () => {
    const search = await t.request('POST', '/api/trace/search', { token: key, body: { pageSize: 10 } });
    expect(search.status).toBe(200);
    expect(search.body.traces.length).toBeGreaterThan(0);
    expectMatches(searchResponseSchema, search.body);
    const fresh = await t.request('POST', '/api/trace/search/new', { token: key, body: { since: 0 } });
    expect(fresh.status).toBe(200);
    expect(fresh.body.traces.length).toBeGreaterThan(0);
    expectMatches(newTracesResponseSchema, fresh.body);
  });

  it('a trace, its outline and one span', async () => {
    const detail = await t.request('GET', '/api/trace/schema-trace', { token: key });
    expect(detail.status).toBe(200);
    expect(detail.body.spans).toHaveLength(3);
    expectMatches(traceDetailSchema, detail.body);
    const outline = await t.request('GET', '/api/trace/schema-trace/outline', { token: key });
    expect(outline.status).toBe(200);
    expectMatches(traceOutlineSchema, outline.body);
    for (const spanId of ['schema-root', 'schema-llm', 'schema-tool']) {
      const span = await t.request('GET', `/api/trace/schema-trace/spans/${spanId}`, { token: key });
      expect(span.status).toBe(200);
      expectMatches(spanSchema, span.body);
    }
  });

  it('the shared trace, its outline and one span, without credentials', async () => {
    for (const url of [`/api/share/${shareToken}`, `/share/${shareToken}`]) {
      const detail = await t.request('GET', url);
      expect(detail.status).toBe(200);
      expectMatches(traceDetailSchema, detail.body);
    }
    const outline = await t.request('GET', `/api/share/${shareToken}/outline`);
    expect(outline.status).toBe(200);
    expectMatches(traceOutlineSchema, outline.body);
    const span = await t.request('GET', `/api/share/${shareToken}/spans/schema-llm`);
    expect(span.status).toBe(200);
    expectMatches(spanSchema, span.body);
  });
});
