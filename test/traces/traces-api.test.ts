import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { createTenant, databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
const T0 = Date.parse('2026-11-20T12:00:00Z');

function collectorTrace(traceId: string, opts: { spans?: object[]; metadata?: object; offset?: number } = {}) {
  const at = T0 + (opts.offset ?? 0);
  return {
    trace_id: traceId,
    spans: opts.spans ?? [
      {
        span_id: `${traceId}-root`,
        type: 'agent',
        name: 'answer',
        input: { type: 'text', value: `question for ${traceId}` },
        output: { type: 'text', value: `answer for ${traceId}` },
        timestamps: { started_at: at, finished_at: at + 2000 },
      },
      {
        span_id: `${traceId}-llm`,
        parent_id: `${traceId}-root`,
        type: 'llm',
        model: 'gpt-4o-mini',
        input: { type: 'chat_messages', value: [{ role: 'user', content: `question for ${traceId}` }] },
        output: { type: 'chat_messages', value: [{ role: 'assistant', content: `answer for ${traceId}` }] },
        metrics: { prompt_tokens: 100, completion_tokens: 20 },
        params: { temperature: 0.3, stream: true },
        timestamps: { started_at: at + 100, first_token_at: at + 400, finished_at: at + 1500 },
      },
    ],
    metadata: opts.metadata ?? { user_id: 'alice', thread_id: 'th-1', labels: ['prod'], sdk_version: '1.2.3', sdk_language: 'python' },
  };
}

describe.each(databaseKinds)('traces API (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  const clock = new ManualClock(T0 + 60_000);
  beforeAll(async () => {
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
  });
  afterAll(() => t.close());
  const send = (body: unknown) => t.request('POST', '/api/collector', { authToken: key, body });
  const search = (body: object) => t.request('POST', '/api/trace/search', { token: key, body });

  it('collector: a trace is searchable and readable the moment it is acknowledged', async () => {
    const res = await send(collectorTrace('trace-a'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ trace_id: 'trace-a', spans: 2 });
    const d = (await t.request('GET', '/api/trace/trace-a', { token: key })).body;
    expect(d).toMatchObject({
      trace_id: 'trace-a',
      project_id: t.creds.project.id,
      metadata: { sdk_version: '1.2.3', sdk_language: 'python', user_id: 'alice', thread_id: 'th-1', labels: ['prod'] },
      input: { value: 'question for trace-a' },
      output: { value: 'answer for trace-a' },
      metrics: { first_token_ms: 400, total_time_ms: 2000, prompt_tokens: 100, completion_tokens: 20, tokens_estimated: false },
      error: null,
      evaluations: [],
    });
    expect(d.timestamps).toMatchObject({ started_at: T0 });
    expect(typeof d.timestamps.inserted_at).toBe('number');
    expect(d.indexing_md5s).toHaveLength(1);
    const llm = d.spans.find((s: { type: string }) => s.type === 'llm');
    expect(llm).toMatchObject({
      span_id: 'trace-a-llm',
      parent_id: 'trace-a-root',
      project_id: t.creds.project.id,
      model: 'gpt-4o-mini',
      params: { temperature: 0.3, stream: true },
      metrics: { prompt_tokens: 100, completion_tokens: 20, tokens_estimated: false },
      input: { type: 'chat_messages', value: [{ role: 'user', content: 'question for trace-a' }] },
      timestamps: { started_at: T0 + 100, first_token_at: T0 + 400, finished_at: T0 + 1500 },
    });
    // gpt-4o-mini: 100 * $0.15/M + 20 * $0.60/M
    expect(llm.metrics.cost).toBeCloseTo(0.000027, 12);
    const found = await search({ query: 'QUESTION FOR TRACE-A' });
    expect(found.body.traces.map((x: { trace_id: string }) => x.trace_id)).toEqual(['trace-a']);
  });

  it('estimates tokens with a tokenizer when the SDK sends none, and says so', async () => {
    await send({
      trace_id: 'trace-est',
      spans: [
        {
          span_id: 's1',
          type: 'llm',
          model: 'gpt-4o',
          input: { type: 'chat_messages', value: [{ role: 'user', content: 'hello world' }] },
          output: { type: 'text', value: 'hello world' },
          timestamps: { started_at: T0, finished_at: T0 + 10 },
        },
      ],
    });
    const d = (await t.request('GET', '/api/trace/trace-est', { token: key })).body;
    // o200k: "hello world" = 2 tokens; chat framing adds 3 per message + 3 priming + role "user" (1).
    expect(d.spans[0].metrics).toMatchObject({ tokens_estimated: true, prompt_tokens: 9, completion_tokens: 2 });
    expect(d.metrics.tokens_estimated).toBe(true);
  });

  it('spans arriving out of order, across requests, and twice assemble one trace without duplicates', async () => {
    const full = collectorTrace('trace-b');
    const [root, child] = full.spans;
    expect((await send({ ...full, spans: [child] })).status).toBe(200);
    let d = (await t.request('GET', '/api/trace/trace-b', { token: key })).body;
    expect(d.spans).toHaveLength(1);
    expect(d.input.value).toBe('question for trace-b'); // the LLM span stands in until the root arrives
    expect((await send({ ...full, spans: [root] })).status).toBe(200);
    expect((await send({ ...full, spans: [{ ...(child), output: { type: 'text', value: 'replaced answer' } }] })).status).toBe(200);
    d = (await t.request('GET', '/api/trace/trace-b', { token: key })).body;
    expect(d.spans).toHaveLength(2);
    expect(d.spans.find((s: { span_id: string }) => s.span_id === 'trace-b-llm').output).toEqual({ type: 'text', value: 'replaced answer' });
    expect(d.metrics.total_time_ms).toBe(2000);
    const [{ n }] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM spans WHERE trace_id = 'trace-b' AND project_id = ${t.creds.project.id}`);
    expect(Number(n)).toBe(2);
  });

  it('answers 400 naming the field for bad timestamps, mixed trace ids, missing ids', async () => {
    const base = collectorTrace('trace-bad');
    const cases: [unknown, string][] = [
      [{ ...base, trace_id: undefined }, 'body.trace_id'],
      [{ ...base, spans: [{ ...(base.spans[0]), span_id: undefined }] }, 'body.spans.0.span_id'],
      [{ ...base, spans: [{ ...(base.spans[0]), trace_id: 'other' }] }, 'body.spans.0.trace_id'],
      [{ ...base, spans: [{ ...(base.spans[0]), timestamps: { started_at: 1763640000, finished_at: 1763640001 } }] }, 'body.spans.0.timestamps.started_at'],
      [{ ...base, spans: [{ ...(base.spans[0]), timestamps: { started_at: T0, finished_at: T0 - 1 } }] }, 'body.spans.0.timestamps.finished_at'],
      [{ ...base, spans: [{ ...(base.spans[0]), timestamps: { started_at: 'yesterday', finished_at: T0 } }] }, 'body.spans.0.timestamps.started_at'],
      [{ ...base, spans: [] }, 'body.spans'],
      [{ ...base, spans: [{ ...(base.spans[0]), type: 'robot' }] }, 'body.spans.0.type'],
    ];
    for (const [body, field] of cases) {
      const res = await send(body);
      expect(res.status, field).toBe(400);
      expect(res.body.error.meta.field, JSON.stringify(res.body)).toBe(field);
    }
    expect((await t.request('GET', '/api/trace/trace-bad', { token: key })).status).toBe(404);
  });

  it('unknown and foreign traces answer 404 with the Error object', async () => {
    const other = await createTenant(t);
    await t.request('POST', '/api/collector', { authToken: other.projectToken, body: collectorTrace('their-trace') });
    const res = await t.request('GET', '/api/trace/their-trace', { token: key });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'trace_not_found' });
    expect(typeof res.body.message).toBe('string');
    const mine = await search({ query: 'their-trace' });
    expect(mine.body.traces).toEqual([]);
    const bad = await t.request('GET', '/api/trace/' + encodeURIComponent('bad id!'), { token: key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
  });

  it('search filters, sorts and pages with scrollId without skipping or repeating while traces arrive', async () => {
    for (let i = 0; i < 12; i++) {
      await send(collectorTrace(`page-${hex(i, 2)}`, { offset: 1_000_000 + i * 1000, metadata: { user_id: i % 2 ? 'odd' : 'even', customer_id: `c${i % 3}`, labels: [i < 6 ? 'early' : 'late'], plan: i % 4 === 0 ? 'pro' : 'free' } }));
    }
    const filters = { user_id: 'even' };
    const seen: string[] = [];
    let scrollId: string | undefined;
    let pages = 0;
    do {
      const res = await search({ filters, pageSize: 2, scrollId });
      expect(res.status).toBe(200);
      expect(res.body.pagination.totalHits).toBe(6);
      seen.push(...res.body.traces.map((x: { trace_id: string }) => x.trace_id));
      scrollId = res.body.pagination.scrollId ?? undefined;
      // New matching traces arrive between pages: they must not shift or repeat anything.
      if (pages === 0) {
        clock.advance(1);
        await send(collectorTrace('page-new', { offset: 2_000_000, metadata: { user_id: 'even' } }));
      }
      pages++;
    } while (scrollId && pages < 10);
    expect(seen).toEqual(['page-0a', 'page-08', 'page-06', 'page-04', 'page-02', 'page-00']);

    const asc = await search({ filters: { labels: 'late', customer_id: ['c0', 'c1'] }, sortDirection: 'asc' });
    expect(asc.body.traces.map((x: { trace_id: string }) => x.trace_id)).toEqual(['page-06', 'page-07', 'page-09', 'page-0a']);
    const meta = await search({ filters: { metadata: { plan: 'pro' } } });
    expect(meta.body.traces.map((x: { trace_id: string }) => x.trace_id)).toEqual(['page-08', 'page-04', 'page-00']);
    const dated = await search({ startDate: T0 + 1_003_000, endDate: new Date(T0 + 1_005_000).toISOString() });
    expect(dated.body.traces.map((x: { trace_id: string }) => x.trace_id)).toEqual(['page-05', 'page-04', 'page-03']);
    const byCost = await search({ sortBy: 'metrics.total_cost', pageSize: 1000 });
    const costs = byCost.body.traces.map((x: { metrics: { total_cost: number | null } }) => x.metrics.total_cost ?? -1);
    expect(costs).toEqual([...costs].sort((a: number, b: number) => b - a));

    expect((await search({ scrollId: 'garbage' })).status).toBe(400);
    const first = await search({ pageSize: 1 });
    const mismatched = await search({ pageSize: 1, scrollId: first.body.pagination.scrollId, filters: { user_id: 'odd' } });
    expect(mismatched.status).toBe(400);
    expect(mismatched.body.field).toBe('scrollId');
    expect((await search({ pageSize: 1001 })).status).toBe(400);
    expect((await search({ sortBy: 'colour' })).body.field).toBe('body.sortBy');
  });

  it('search/new answers the traces first stored since a time, with the search filters, and the server time to ask from next', async () => {
    const since = clock.now().getTime();
    const before = await t.request('POST', '/api/trace/search/new', { token: key, body: { since: since + 1 } });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ traces: [], count: 0, now: since });
    clock.advance(1000);
    await send(collectorTrace('live-1', { metadata: { user_id: 'live-user' } }));
    clock.advance(1000);
    await send(collectorTrace('live-2', { metadata: { user_id: 'other-user' } }));
    const all = await t.request('POST', '/api/trace/search/new', { token: key, body: { since: since + 1 } });
    expect(all.body.traces.map((tr: { trace_id: string }) => tr.trace_id)).toEqual(['live-2', 'live-1']);
    expect(all.body.count).toBe(2);
    expect(all.body.now).toBe(clock.now().getTime());
    const filtered = await t.request('POST', '/api/trace/search/new', { token: key, body: { since: since + 1, filters: { user_id: 'live-user' } } });
    expect(filtered.body.traces.map((tr: { trace_id: string }) => tr.trace_id)).toEqual(['live-1']);
    const later = await t.request('POST', '/api/trace/search/new', { token: key, body: { since: all.body.now + 1 } });
    expect(later.body.count).toBe(0);
    const bad = await t.request('POST', '/api/trace/search/new', { token: key, body: { since: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('body.since');
  });

  it('search answers carry each trace\'s evaluations in brief and its thumbs counted', async () => {
    await send(collectorTrace('facts-1'));
    await t.request('POST', '/api/annotations/trace/facts-1', { token: key, body: { comment: 'good', isThumbsUp: true } });
    await t.request('POST', '/api/annotations/trace/facts-1', { token: key, body: { comment: 'meh', isThumbsUp: false } });
    await t.request('POST', '/api/annotations/trace/facts-1', { token: key, body: { comment: 'great', isThumbsUp: true } });
    const evaluated = await t.request('POST', '/api/evaluations/pii/pii_detection/evaluate', {
      token: key,
      body: { trace_id: 'facts-1', name: 'PII check', data: { input: 'write to bob@example.com', output: 'ok' } },
    });
    expect(evaluated.status).toBe(200);
    const found = (await search({ query: 'facts-1' })).body.traces;
    const facts = found.find((tr: { trace_id: string }) => tr.trace_id === 'facts-1');
    expect(facts.annotations).toEqual({ thumbs_up: 2, thumbs_down: 1 });
    expect(facts.evaluations).toEqual([
      { evaluation_id: expect.any(String), name: 'PII check', status: 'processed', passed: false, score: expect.any(Number), label: null },
    ]);
    const plain = (await search({ query: 'trace-a' })).body.traces.find((tr: { trace_id: string }) => tr.trace_id === 'trace-a');
    expect(plain).toMatchObject({ annotations: { thumbs_up: 0, thumbs_down: 0 }, evaluations: [] });
  });

  it('shares a trace under a public path until it is unshared', async () => {
    await send(collectorTrace('trace-share'));
    const a = await t.request('POST', '/api/trace/trace-share/share', { token: key });
    expect(a.status).toBe(200);
    expect(a.body.path).toMatch(/^\/share\/[A-Za-z0-9]{32}$/);
    const b = await t.request('POST', '/api/trace/trace-share/share', { token: key });
    expect(b.body.path).toBe(a.body.path);
    const token = a.body.path.split('/')[2];
    const pub = await t.request('GET', `/api/share/${token}`);
    expect(pub.status).toBe(200);
    expect(pub.body.trace_id).toBe('trace-share');
    const html = { headers: { accept: 'text/html' } };
    const page = await t.request('GET', a.body.path, html);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('x-robots-tag')).toContain('noindex');
    expect((await t.request('GET', '/api/trace/trace-share/share', { token: key })).body).toEqual({
      shared: true,
      path: a.body.path,
      options: { hide_user: false, hide_metadata: false, hide_span_attributes: false },
    });

    const un = await t.request('POST', '/api/trace/trace-share/unshare', { token: key });
    expect(un.status).toBe(200);
    expect(typeof un.body.message).toBe('string');
    expect((await t.request('GET', `/api/share/${token}`)).status).toBe(404);
    expect((await t.request('GET', a.body.path, html)).status).toBe(404);
    expect((await t.request('GET', '/api/trace/trace-share/share', { token: key })).body).toEqual({ shared: false, path: null, options: null });
    const [{ n }] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM events WHERE type IN ('trace.shared', 'trace.unshared') AND project_id = ${t.creds.project.id}`);
    expect(Number(n)).toBe(2);
  });

  it('a share hides the end user, the metadata and the span attributes when asked (a share made without a body shows everything, as before); sharing again changes what it hides', async () => {
    const spans = [
      {
        span_id: 'private-root',
        type: 'agent',
        name: 'answer',
        input: { type: 'text', value: 'question' },
        output: { type: 'text', value: 'answer' },
        timestamps: { started_at: T0, finished_at: T0 + 1000 },
        attributes: { 'langwatch.user.id': 'alice@example.com', 'enduser.id': 'alice', 'service.version': '2.1', 'retrieval.top_k': 3 },
      },
    ];
    await send(collectorTrace('private', { spans, metadata: { user_id: 'alice@example.com', thread_id: 'th-9', customer_id: 'acme', labels: ['prod'], plan: 'gold' } }));
    const shared = async (body?: object) => {
      const res = await t.request('POST', '/api/trace/private/share', { token: key, ...(body ? { body } : {}) });
      expect(res.status, res.text).toBe(200);
      const token = (res.body.path as string).split('/')[2];
      const detail = (await t.request('GET', `/api/share/${token}`)).body;
      const span = (await t.request('GET', `/api/share/${token}/spans/private-root`)).body;
      return { detail, span, state: (await t.request('GET', '/api/trace/private/share', { token: key })).body };
    };
    // No body, as before: everything shown.
    const asBefore = await shared();
    expect(asBefore.detail.metadata).toMatchObject({ user_id: 'alice@example.com', plan: 'gold' });
    expect(asBefore.state.options).toEqual({ hide_user: false, hide_metadata: false, hide_span_attributes: false });
    // The end user hidden (the web app's default), everything else shown (the shape unchanged).
    const plain = await shared({ hide_user: true });
    expect(plain.detail.metadata).toEqual({ thread_id: 'th-9', customer_id: 'acme', labels: ['prod'], plan: 'gold' });
    expect(plain.detail.spans[0].attributes).toEqual({ 'service.version': '2.1', 'retrieval.top_k': 3 });
    expect(plain.span.attributes).toEqual({ 'service.version': '2.1', 'retrieval.top_k': 3 });
    expect(plain.detail.input).toEqual({ value: 'question' });
    expect(plain.state.options).toEqual({ hide_user: true, hide_metadata: false, hide_span_attributes: false });
    // Everything shown, on purpose.
    const open = await shared({ hide_user: false });
    expect(open.detail.metadata).toMatchObject({ user_id: 'alice@example.com', plan: 'gold' });
    expect(open.span.attributes).toMatchObject({ 'langwatch.user.id': 'alice@example.com', 'enduser.id': 'alice' });
    // Metadata and attributes hidden (the same path: the share remembers the latest choice).
    const closed = await shared({ hide_user: true, hide_metadata: true, hide_span_attributes: true });
    expect(closed.state.path).toBe(open.state.path);
    expect(closed.detail.metadata).toEqual({});
    expect(closed.detail.spans[0].attributes).toEqual({});
    expect(closed.span.attributes).toEqual({});
    expect(closed.detail.output).toEqual({ value: 'answer' });
    // The project's own view is never redacted.
    expect((await t.request('GET', '/api/trace/private', { token: key })).body.metadata).toMatchObject({ user_id: 'alice@example.com', plan: 'gold' });
    // A wrong option is named.
    const wrong = await t.request('POST', '/api/trace/private/share', { token: key, body: { hide_user: 'yes' } });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain('hide_user');
  });

  it('the public path answers a program with the shared trace (as /api/share does) and a browser with the page', async () => {
    const { path } = (await t.request('POST', '/api/trace/trace-follow/share', { token: key })).body;
    const token = path.split('/')[2];
    const programs: Record<string, string>[] = [{}, { accept: '*/*' }, { accept: 'application/json' }, { accept: 'application/json, text/html;q=0.9' }];
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8' };
    // Each program gets exactly what the API route answers: before the spans arrive, while shared, once unshared.
    const expectSameAsApi = async (status: number) => {
      const api = await t.request('GET', `/api/share/${token}`);
      expect(api.status).toBe(status);
      for (const headers of programs) {
        const res = await t.request('GET', path, { headers });
        expect(res.status, JSON.stringify(headers)).toBe(status);
        expect(res.headers.get('content-type'), JSON.stringify(headers)).toContain('application/json');
        expect(res.headers.get('vary')).toContain('accept');
        expect(res.body, JSON.stringify(headers)).toEqual(api.body);
      }
      const page = await t.request('GET', path, { headers: browser });
      expect(page.status).toBe(status);
      expect(page.headers.get('content-type')).toContain('text/html');
    };
    await expectSameAsApi(404);
    await send(collectorTrace('trace-follow'));
    await expectSameAsApi(200);
    expect((await t.request('GET', path)).body).toMatchObject({ trace_id: 'trace-follow', spans: [{}, {}] });
    await t.request('POST', '/api/trace/trace-follow/unshare', { token: key });
    await expectSameAsApi(404);
    expect((await t.request('GET', path)).body.error).toBe('share_not_found');
  });

  it('outline: every span without payloads; one span whole by its id (also on a shared trace)', async () => {
    await send(collectorTrace('outlined'));
    const outline = await t.request('GET', '/api/trace/outlined/outline', { token: key });
    expect(outline.status).toBe(200);
    expect(outline.body.trace_id).toBe('outlined');
    expect(outline.body.spans.map((s: { span_id: string }) => s.span_id)).toEqual(['outlined-root', 'outlined-llm']);
    expect(outline.body.spans[1]).toEqual({
      span_id: 'outlined-llm',
      parent_id: 'outlined-root',
      name: null,
      type: 'llm',
      model: 'gpt-4o-mini',
      timestamps: { started_at: T0 + 100, finished_at: T0 + 1500, first_token_at: T0 + 400 },
      error: null,
      metrics: { prompt_tokens: 100, completion_tokens: 20, cost: expect.any(Number) },
    });
    const full = (await t.request('GET', '/api/trace/outlined', { token: key })).body.spans[1];
    const one = await t.request('GET', '/api/trace/outlined/spans/outlined-llm', { token: key });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(full);
    expect((await t.request('GET', '/api/trace/outlined/spans/nope', { token: key })).body.error).toBe('span_not_found');
    const stranger = await createTenant(t, 'Stranger Org');
    expect((await t.request('GET', '/api/trace/outlined/spans/outlined-llm', { token: stranger.projectToken })).status).toBe(404);

    const { path } = (await t.request('POST', '/api/trace/outlined/share', { token: key })).body;
    const token = path.split('/')[2];
    expect((await t.request('GET', `/api/share/${token}/outline`)).body.spans).toEqual(outline.body.spans);
    expect((await t.request('GET', `/api/share/${token}/spans/outlined-llm`)).body).toEqual(full);
    await t.request('POST', '/api/trace/outlined/unshare', { token: key });
    expect((await t.request('GET', `/api/share/${token}/outline`)).status).toBe(404);
    expect((await t.request('GET', `/api/share/${token}/spans/outlined-llm`)).status).toBe(404);
  });

  it('deletes traces past the project retention period in the background sweep', async () => {
    await send(collectorTrace('trace-old', { offset: -40 * 86_400_000 }));
    await send(collectorTrace('trace-recent', { offset: -1 * 86_400_000 }));
    const note = await t.request('POST', '/api/annotations/trace/trace-old', { token: key, body: { comment: 'old', isThumbsUp: false } });
    expect(note.status).toBe(200);
    const evaluated = await t.request('POST', '/api/evaluations/llm/competitor_blocklist/evaluate', {
      authToken: key,
      body: { data: { output: 'we beat OpenAI' }, trace_id: 'trace-old' },
    });
    expect(evaluated.status).toBe(200);
    expect((await t.request('GET', '/api/trace/trace-old', { token: key })).body.evaluations).toHaveLength(1);
    await t.request('PATCH', `/api/projects/${t.creds.project.id}`, { token: t.creds.adminApiKey, body: { retentionDays: 30 } });
    const deleted = await t.app.services.traces.sweepRetention();
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect((await t.request('GET', '/api/trace/trace-old', { token: key })).status).toBe(404);
    expect((await t.request('GET', '/api/trace/trace-recent', { token: key })).status).toBe(200);
    const [{ n }] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM spans WHERE trace_id = 'trace-old' AND project_id = ${t.creds.project.id}`);
    expect(Number(n)).toBe(0);
    // What belonged to the trace goes with it.
    expect((await t.request('GET', '/api/annotations/trace/trace-old', { token: key })).body.data).toEqual([]);
    const [{ e }] = await rows<{ e: number }>(t.db.orm, sql`SELECT count(*)::int AS e FROM evaluations WHERE trace_id = 'trace-old' AND project_id = ${t.creds.project.id}`);
    expect(Number(e)).toBe(0);
    await t.request('PATCH', `/api/projects/${t.creds.project.id}`, { token: t.creds.adminApiKey, body: { retentionDays: null } });
  });

  it('emits trace.created once per new trace', async () => {
    await send(collectorTrace('trace-evt'));
    await send(collectorTrace('trace-evt'));
    const [{ n }] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM events WHERE type = 'trace.created' AND data->>'trace_id' = 'trace-evt' AND project_id = ${t.creds.project.id}`);
    expect(Number(n)).toBe(1);
  });

  it('refuses bad OTLP bodies with clear 4xx and keeps the server up', async () => {
    const post = (rawBody: Buffer | string, headers: Record<string, string>) => t.request('POST', '/api/otel/v1/traces', { token: key, rawBody, headers });
    const junk = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf' });
    expect(junk.status).toBe(400);
    const truncated = zlib.gzipSync(Buffer.from('{"resourceSpans":[]}')).subarray(0, 12);
    const gz = await post(truncated, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(gz.status).toBe(400);
    expect(gz.body.error.message).toContain('gzip');
    const big = await post(Buffer.alloc(20 * 1024 * 1024, 1), { 'content-type': 'application/x-protobuf' });
    expect(big.status).toBe(413);
    const xml = await post('<x/>', { 'content-type': 'text/xml' });
    expect(xml.status).toBe(415);
    const brotli = await post('x', { 'content-type': 'application/json', 'content-encoding': 'br' });
    expect(brotli.status).toBe(415);

    const good = { traceId: hex(1, 32), spanId: hex(2, 16), name: 'good', startTimeUnixNano: String(T0 * 1e6), endTimeUnixNano: String((T0 + 5) * 1e6) };
    const shortId = { ...good, spanId: 'abc', name: 'short id' };
    const manyAttrs = { ...good, spanId: hex(3, 16), name: 'many', attributes: Array.from({ length: 10_000 }, (_, i) => ({ key: `k${i}`, value: { stringValue: 'v' } })) };
    const payload = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans: [good, shortId, manyAttrs] }] }] };
    const mixed = await post(JSON.stringify(payload), { 'content-type': 'application/json' });
    expect(mixed.status).toBe(200);
    expect(Number(mixed.body.partialSuccess.rejectedSpans)).toBe(2); // int64: a string in OTLP/JSON
    expect(mixed.body.partialSuccess.errorMessage).toMatch(/span/i);
    const kept = await t.request('GET', `/api/trace/${hex(1, 32)}`, { token: key });
    expect(kept.body.spans.map((s: { name: string }) => s.name)).toEqual(['good']);
    const allBad = await post(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [shortId] }] }] }), { 'content-type': 'application/json' });
    expect(allBad.status).toBe(400);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    // Also reachable as /v1/traces, gzip-compressed.
    const viaRoot = await t.request('POST', '/v1/traces', {
      token: key,
      rawBody: zlib.gzipSync(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...good, traceId: hex(9, 32) }] }] }] })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(viaRoot.status).toBe(200);
    expect((await t.request('GET', `/api/trace/${hex(9, 32)}`, { token: key })).status).toBe(200);
  });

  it('refuses spans from more than a day ahead with a partial-success message; they never sort first', async () => {
    const now = clock.now().getTime();
    const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
    const span = (n: number, name: string, start: string, end: string) => ({ traceId: hex(0x500 + n, 32), spanId: hex(0x500 + n, 16), name, startTimeUnixNano: start, endTimeUnixNano: end });
    const year2500 = nanos(Date.parse('2500-01-01T00:00:00Z'));
    const maxUint64 = '18446744073709551615';
    const spans = [
      span(1, 'on time', nanos(now - 1000), nanos(now)),
      span(2, 'clock skew of an hour', nanos(now + 3_600_000), nanos(now + 3_601_000)),
      span(3, 'year 2500', year2500, year2500),
      span(4, 'max uint64', maxUint64, maxUint64),
      span(5, 'ends in 2500', nanos(now - 1000), year2500),
    ];
    const body = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans }] }] };
    const res = await t.request('POST', '/api/otel/v1/traces', { token: key, rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(Number(res.body.partialSuccess.rejectedSpans)).toBe(3);
    expect(res.body.partialSuccess.errorMessage).toMatch(/year 2500.*more than a day ahead/);
    expect(res.body.partialSuccess.errorMessage).toMatch(/max uint64.*more than a day ahead/);
    expect(res.body.partialSuccess.errorMessage).toMatch(/ends in 2500.*end time.*more than a day ahead/);
    // The same through protobuf.
    const { otlpJsonToProtobuf } = await import('./ingest-helpers.ts');
    const pb = await t.request('POST', '/api/otel/v1/traces', {
      token: key,
      rawBody: otlpJsonToProtobuf({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...spans[3], traceId: hex(0x600, 32) }, { ...spans[0], traceId: hex(0x601, 32) }] }] }] }),
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(pb.status).toBe(200);
    expect((await t.request('GET', `/api/trace/${hex(0x600, 32)}`, { token: key })).status).toBe(404);

    // The newest trace is the one an hour ahead; nothing from the far future is stored.
    const newest = await search({ pageSize: 1 });
    expect(newest.body.traces.map((tr: { trace_id: string }) => tr.trace_id)).toEqual([hex(0x502, 32)]);
    for (const n of [3, 4, 5]) expect((await t.request('GET', `/api/trace/${hex(0x500 + n, 32)}`, { token: key })).status).toBe(404);
    // The collector refuses such a trace whole, naming the field.
    const future = collectorTrace('trace-future');
    (future.spans[0] as { timestamps: { started_at: number; finished_at: number } }).timestamps = { started_at: now + 2 * 86_400_000, finished_at: now + 2 * 86_400_000 };
    const refused = await send(future);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('spans.0.timestamps.started_at');
  });
});
