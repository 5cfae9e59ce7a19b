import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { idleReads, readsInProgress } from '../support/reads-gauge.ts';

/**
 * The trace detail is streamed page by page (docs/api.md: Traces: reading them). These tests read
 * it over HTTP: the same bytes as the answer built whole, a snapshot that spans ingested
 * mid-download do not tear, a 404 decided before the first byte, and downloads abandoned
 * midway that leave nothing held (no cursor, no pooled connection).
 */
const T0 = Date.now() - 3_600_000;
const SPANS = 1_600;
/** ~4 KiB of input per span: the whole answer (~7 MiB) is more than loopback socket buffers hold. */
const filler = (i: number) => `span ${i} `.padEnd(4_000, 'abcdefghij');

function span(traceId: string, i: number, extra: object = {}) {
  return {
    span_id: `s${String(i).padStart(5, '0')}`,
    parent_id: i === 0 ? undefined : 's00000',
    type: i % 3 === 0 ? 'llm' : 'span',
    name: `step ${i}`,
    model: i % 3 === 0 ? 'gpt-4o-mini' : undefined,
    input: { type: 'text', value: filler(i) },
    output: { type: 'json', value: { n: i, ok: i % 7 !== 0, quote: 'a "quoted" \\ value \u00e9\u4e2d' } },
    // Equal start times for neighbours: the order falls back on span_id.
    timestamps: { started_at: T0 + Math.floor(i / 2), finished_at: T0 + Math.floor(i / 2) + 500 },
    ...(i % 11 === 0 ? { error: { has_error: true, message: `failed ${i}`, stacktrace: ['at x'] } } : {}),
    ...extra,
  };
}

/** The spans array as the detail built it whole before streaming (one statement, string_agg). */
async function wholeSpansArray(t: TestApp, traceId: string, payloads: boolean): Promise<string> {
  const object = payloads
    ? sql`json_build_object(
            'trace_id', trace_id, 'span_id', span_id, 'project_id', project_id, 'parent_id', parent_id, 'name', name,
            'type', type, 'model', model, 'model_name', model_name, 'vendor', vendor,
            'timestamps', json_build_object('started_at', started_at, 'finished_at', finished_at,
              'first_token_at', first_token_at, 'updated_at', updated_at, 'inserted_at', inserted_at),
            'error', error,
            'metrics', json_build_object('tokens_estimated', tokens_estimated, 'prompt_tokens', prompt_tokens,
              'completion_tokens', completion_tokens, 'cached_input_tokens', cached_input_tokens,
              'reasoning_tokens', reasoning_tokens, 'cost', cost))::text`
    : sql`row_to_json((SELECT o FROM (SELECT span_id, parent_id, name, type, model,
            (SELECT t FROM (SELECT started_at, finished_at, first_token_at) t) AS timestamps,
            CASE WHEN error IS NULL THEN NULL ELSE json_build_object('message', error->>'message') END AS error,
            (SELECT m FROM (SELECT prompt_tokens, completion_tokens, cost) m) AS metrics) o))::text`;
  const item = payloads ? sql`CASE WHEN data::text = '{}' THEN base ELSE left(base, -1) || ',' || substr(data::text, 2) END` : sql`base`;
  const [r] = await rows<{ spans: string }>(
    t.db.orm,
    sql`SELECT '[' || coalesce(string_agg(${item}, ',' ORDER BY started_at, span_id), '') || ']' AS spans
        FROM (SELECT started_at, span_id, ${payloads ? sql`data` : sql`NULL::jsonb AS data`}, ${object} AS base
              FROM spans WHERE project_id = ${t.creds.project.id} AND trace_id = ${traceId}) s`,
  );
  return r.spans;
}

describe.each(databaseKinds)('trace detail streamed (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  const auth = () => ({ authorization: `Bearer ${key}` });
  const send = async (traceId: string, spans: object[]) => {
    const res = await t.request('POST', '/api/collector', { token: key, body: { trace_id: traceId, spans } });
    expect(res.status).toBe(200);
  };
  const sendMany = async (traceId: string, from: number, to: number) => {
    for (let first = from; first < to; first += 400) {
      await send(traceId, Array.from({ length: Math.min(400, to - first) }, (_, j) => span(traceId, first + j)));
    }
  };

  beforeAll(async () => {
    t = await startApp(kind);
    key = t.creds.projectApiKey;
    await sendMany('big', 0, SPANS);
  }, 120_000);
  afterAll(() => t?.close());

  it('answers the same bytes as the whole answer did, with payloads and in outline', async () => {
    const res = await fetch(`${t.baseUrl}/api/trace/big`, { headers: auth() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await res.text();
    const at = text.indexOf(',"spans":[');
    expect(text.slice(at)).toBe(`,"spans":${await wholeSpansArray(t, 'big', true)}}`);
    const detail = JSON.parse(text);
    expect(detail).toMatchObject({ trace_id: 'big', span_count: SPANS, evaluations: [] });
    expect(detail.spans).toHaveLength(SPANS);
    expect(detail.spans.map((s: { span_id: string }) => s.span_id)).toEqual(Array.from({ length: SPANS }, (_, i) => span('big', i).span_id));

    const outline = await fetch(`${t.baseUrl}/api/trace/big/outline`, { headers: auth() }).then((r) => r.text());
    expect(outline.slice(outline.indexOf(',"spans":['))).toBe(`,"spans":${await wholeSpansArray(t, 'big', false)}}`);
    expect(outline.slice(0, outline.indexOf(',"spans":['))).toBe(text.slice(0, at));
  });

  it('a trace of one span, and the shared trace, stream as well', async () => {
    await send('tiny', [span('tiny', 0)]);
    const detail = await t.request('GET', '/api/trace/tiny', { token: key });
    expect(detail.status).toBe(200);
    expect(detail.text.slice(detail.text.indexOf(',"spans":['))).toBe(`,"spans":${await wholeSpansArray(t, 'tiny', true)}}`);
    const { path } = (await t.request('POST', '/api/trace/tiny/share', { token: key })).body as { path: string };
    const shared = await t.request('GET', `/api/share/${path.split('/').pop()}`);
    expect(shared.status).toBe(200);
    expect(shared.text).toBe(detail.text);
  });

  it('an unknown trace is a 404 JSON error, decided before the first byte', async () => {
    for (const url of ['/api/trace/nope', '/api/trace/nope/outline']) {
      const res = await t.request('GET', url, { token: key });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: 'trace_not_found', message: 'no trace nope in this project' });
    }
  });

  it('spans ingested during a download do not tear it, and ingest is not held by it', async () => {
    await sendMany('moving', 0, SPANS);
    const before = await wholeSpansArray(t, 'moving', true);
    const res = await fetch(`${t.baseUrl}/api/trace/moving`, { headers: auth() });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // The client reads nothing more while spans arrive: replacing an early span (already
    // sent), one not yet sent, and adding new ones. Each is acknowledged (committed) while
    // the download waits.
    await send('moving', [span('moving', 0, { name: 'renamed' }), span('moving', SPANS - 1, { name: 'renamed' }), span('moving', SPANS + 1)]);
    await sendMany('moving', SPANS + 2, SPANS + 200);
    const chunks: Uint8Array[] = [first.value!];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text.slice(text.indexOf(',"spans":['))).toBe(`,"spans":${before}}`);
    const detail = JSON.parse(text);
    expect(detail.span_count).toBe(SPANS);
    expect(detail.spans).toHaveLength(SPANS);
    // A later read sees everything.
    const after = (await t.request('GET', '/api/trace/moving/outline', { token: key })).body;
    expect(after.span_count).toBe(SPANS + 199);
    expect(after.spans.find((s: { span_id: string }) => s.span_id === 's00000').name).toBe('renamed');
  }, 60_000);

  it('a download waiting for its client holds no ingest back: it counts as a read only while it reads from the database', async () => {
    const idle = await idleReads(t);
    const res = await fetch(`${t.baseUrl}/api/trace/big`, { headers: auth() });
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [(await reader.read()).value!];
    // The client reads nothing more: once the socket's buffers are full the server stops
    // reading pages, and the download stops counting.
    let reads = await readsInProgress(t);
    for (let i = 0; i < 100 && reads > idle; i++) {
      await new Promise((r) => setTimeout(r, 50));
      reads = await readsInProgress(t);
    }
    expect(reads).toBeLessThanOrEqual(idle);
    // Ingest meanwhile is acknowledged, and a search answers.
    await send('while-waiting', [span('while-waiting', 0)]);
    expect((await t.request('POST', '/api/trace/search', { token: key, body: {} })).status).toBe(200);
    // The client reads the rest: the whole answer arrives.
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8')).spans).toHaveLength(SPANS);
    expect(await readsInProgress(t)).toBeLessThanOrEqual(idle);
  }, 60_000);

  it('downloads abandoned midway release everything: the server answers and nothing stays held', async () => {
    const abandon = async () => {
      const controller = new AbortController();
      const res = await fetch(`${t.baseUrl}/api/trace/big`, { headers: auth(), signal: controller.signal });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.read().catch(() => undefined);
    };
    // More at once than the PostgreSQL pool has connections (5), and on PostgreSQL a second round
    // while the first may still hold some. PGlite has no pool, only the cursors: one round of 12
    // leaves 12 to close (each abandoned download costs ~0.2 s of CPU here).
    const rounds = kind === 'postgres' ? 2 : 1;
    for (let round = 0; round < rounds; round++) await Promise.all(Array.from({ length: 12 }, abandon));
    // Every stream closes its cursor and gives its connection back once the server sees the
    // disconnect (asynchronously): wait for it, bounded.
    const held = async () => {
      if (t.db.pool) return t.db.pool.totalCount - t.db.pool.idleCount;
      const [{ n }] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM pg_cursors WHERE name LIKE 'trace\_spans\_%'`);
      return Number(n);
    };
    for (let i = 0; i < 100 && (await held()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await held()).toBe(0);
    // Normal requests, more of them at once than the pool's connections, still answer.
    const answers = await Promise.all(Array.from({ length: 12 }, () => t.request('GET', '/api/trace/big/outline', { token: key })));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect((await t.request('GET', '/api/trace/big', { token: key })).body.spans).toHaveLength(SPANS);
  }, 60_000);
});
