import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { createTenant, databaseKinds, startApp, type ApiResponse, type DatabaseKind, type TestApp, type Tenant } from '../support/harness.ts';

/** Floods past the bounds; longer and heavier ones are `npm run bench`'s (BENCH_ONLY=overload,flood). */
const FLOOD_REQUESTS = 30;
const T0 = Date.now() - 3_600_000;

/** A collector trace of `n` spans. */
const trace = (id: string, n: number) => ({
  trace_id: id,
  spans: Array.from({ length: n }, (_, i) => ({
    span_id: `${id}-${i}`,
    type: 'llm',
    model: 'gpt-4o-mini',
    input: { type: 'text', value: `question ${i} of ${id}` },
    output: { type: 'text', value: `answer ${i}` },
    timestamps: { started_at: T0 + i, finished_at: T0 + i + 50 },
  })),
});

const spansOf = async (t: TestApp, projectId: string, traceIds: string[]) =>
  traceIds.length === 0
    ? 0
    : Number(
        (await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM spans WHERE project_id = ${projectId} AND trace_id IN (${sql.join(traceIds.map((id) => sql`${id}`), sql`, `)})`))[0]
          .n,
      );

/** An OTLP/JSON trace request of 2,000 spans, optionally gzipped. */
const otlpTrace = (traceId: string) =>
  JSON.stringify({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: Array.from({ length: 2_000 }, (_, i) => ({
              traceId,
              spanId: (i + 1).toString(16).padStart(16, '0'),
              name: `span ${i}`,
              startTimeUnixNano: String((T0 + i) * 1e6),
              endTimeUnixNano: String((T0 + i + 5) * 1e6),
              attributes: [{ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } }],
            })),
          },
        ],
      },
    ],
  });

const postOtlpTrace = (t: TestApp, traceId: string, options: { gzip?: boolean } = {}) =>
  t.request('POST', '/v1/traces', {
    authToken: t.creds.projectApiKey,
    rawBody: options.gzip ? gzipSync(otlpTrace(traceId)) : otlpTrace(traceId),
    headers: { 'content-type': 'application/json', ...(options.gzip ? { 'content-encoding': 'gzip' } : {}) },
  });

/**
 * The file's database per kind, opened by the first block's app: the later blocks' apps (each
 * with its own limits) reopen it once the block before has stopped, instead of opening a
 * database each (about 2 s of CPU on PGlite). Closed after the file.
 */
const firstApps = new Map<DatabaseKind, TestApp>();
afterAll(async () => {
  for (const app of firstApps.values()) await app.close();
});

describe.each(databaseKinds)('overload: bounded ingest queues (%s)', (kind) => {
  let t: TestApp;
  let other: Tenant;
  beforeAll(async () => {
    // A queue of 100 spans per project and 1,000 for the process: 100-span requests sent at
    // once cannot all wait for their commit.
    t = await startApp(kind, { env: { SPYGLASS_INGEST_PROJECT_QUEUE_SPANS: '100', SPYGLASS_INGEST_QUEUE_SPANS: '1000' } });
    firstApps.set(kind, t);
    other = await createTenant(t);
  });
  // Stopped (its requests and timers end); its database stays for the next blocks.
  afterAll(() => t?.stop());

  it('past the bound ingest answers 503 with Retry-After; what got 200 is stored, what got 503 is not; /healthz and /readyz answer meanwhile', async () => {
    const n = FLOOD_REQUESTS;
    const probes: Promise<{ healthz: number; readyz: number; readyBody: any }>[] = [];
    // Requests that trickle in are committed one by one: flood again (new traces) until one is shed.
    let ids: string[] = [];
    let answers: ApiResponse[] = [];
    for (let round = 0; round < 5 && !answers.some((a) => a.status === 503); round++) {
      ids = Array.from({ length: n }, (_, i) => `flood-${round}-${i}`);
      const flood = Promise.all(ids.map((id) => t.request('POST', '/api/collector', { authToken: t.creds.projectApiKey, body: trace(id, 100) })));
      for (let i = 0; i < 5; i++) {
        probes.push(
          Promise.all([t.request('GET', '/healthz'), t.request('GET', '/readyz')]).then(([h, r]) => ({ healthz: h.status, readyz: r.status, readyBody: r.body })),
        );
        await new Promise((r) => setTimeout(r, 20));
      }
      answers = await flood;
    }
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(a.body.error).toMatchObject({ type: 'unavailable', code: 'ingest_queue_full' });
    }
    const accepted = ids.filter((_, i) => statuses[i] === 200);
    const shed = ids.filter((_, i) => statuses[i] === 503);
    expect(await spansOf(t, t.creds.project.id, accepted)).toBe(accepted.length * 100);
    expect(await spansOf(t, t.creds.project.id, shed)).toBe(0);

    for (const p of await Promise.all(probes)) {
      expect(p.healthz).toBe(200);
      expect([200, 503]).toContain(p.readyz);
      expect(p.readyBody).toMatchObject({ status: p.readyz === 200 ? 'ready' : 'not_ready', checks: { database: { ok: expect.any(Boolean) }, ingestQueue: { limit: 1000 } } });
    }
    // Once the queue has drained the server is ready again.
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { database: { ok: true }, ingestQueue: { ok: true, queuedSpans: 0, limit: 1000 } } });
  });

  it('one noisy project fills only its own share: another project is admitted meanwhile', async () => {
    const noisy = Array.from({ length: FLOOD_REQUESTS }, (_, i) => `noisy-${i}`);
    const flood = Promise.all(noisy.map((id) => t.request('POST', '/api/collector', { authToken: t.creds.projectApiKey, body: trace(id, 100) })));
    const quiet: number[] = [];
    for (let i = 0; i < 3; i++) {
      quiet.push((await t.request('POST', '/api/collector', { authToken: other.projectToken, body: trace(`quiet-${i}`, 50) })).status);
    }
    const noisyStatuses = (await flood).map((a) => a.status);
    expect(noisyStatuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(quiet).toEqual([200, 200, 200]);
    expect(await spansOf(t, other.projectId, ['quiet-0', 'quiet-1', 'quiet-2'])).toBe(150);
  });

  it('a decode worker that dies answers its request in progress 503 with Retry-After (nothing stored); the next request gets a new worker and is stored', async () => {
    const post = (traceId: string) => postOtlpTrace(t, traceId);
    const decoder = t.app.services.traces.ingestion.otlpDecoder;
    const lost = 'de000000000000000000000000000001';
    const pending = post(lost);
    while (decoder.inProgress === 0) await new Promise((r) => setTimeout(r, 1));
    await decoder.crash();
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body.error.code).toBe('ingest_unavailable');
    const kept = 'de000000000000000000000000000002';
    expect((await post(kept)).status).toBe(200);
    expect(await spansOf(t, t.creds.project.id, [lost, kept])).toBe(2_000);
  });

  it('the per-key rate limit is off by default: a burst of requests is all admitted', async () => {
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push((await t.request('POST', '/api/collector', { authToken: other.projectToken, body: trace(`burst-${i}`, 1) })).status);
    expect(answers).toEqual(Array(10).fill(200));
  });
});

describe.each(databaseKinds)('overload: a decode worker that stops answering (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    // 1 ms: no worker can start and decode a request in that time, so every job outlives it.
    t = await startApp(kind, { reopen: firstApps.get(kind), env: { SPYGLASS_INGEST_DECODE_TIMEOUT_SECONDS: '0.001' } });
  });
  afterAll(() => t?.close());

  it('is terminated past the deadline: its request answers 503 ingest_unavailable with Retry-After (nothing stored), the next one gets a new worker; with the usual deadline the same body is stored', async () => {
    const slow = 'de000000000000000000000000000003';
    const answer = await postOtlpTrace(t, slow, { gzip: true });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body.error).toMatchObject({ type: 'unavailable', code: 'ingest_unavailable', message: expect.stringContaining('stopped answering') });
    expect(t.app.services.traces.ingestion.otlpDecoder.inProgress).toBe(0);
    expect(await spansOf(t, t.creds.project.id, [slow])).toBe(0);
    // The decoder did not stay stuck on the terminated worker: the next request is answered too
    // (by a new worker, terminated as well at this deadline).
    const next = await postOtlpTrace(t, slow, { gzip: true });
    expect(next.status).toBe(503);
    expect(next.body.error.message).toContain('stopped answering');

    // The same server restarted with the usual deadline (30 s) decodes and stores that body.
    await t.stop();
    const usual = await startApp(kind, { reopen: t });
    try {
      expect(usual.config.ingest.decodeTimeoutMs).toBe(30_000);
      expect((await postOtlpTrace(usual, slow, { gzip: true })).status).toBe(200);
      expect(await spansOf(usual, usual.creds.project.id, [slow])).toBe(2_000);
    } finally {
      await usual.close();
    }
  });
});

describe.each(databaseKinds)('overload: per-key rate limit (%s)', (kind) => {
  let t: TestApp;
  let other: Tenant;
  beforeAll(async () => {
    // One request every 5 s per key: the second at once is over it.
    t = await startApp(kind, { reopen: firstApps.get(kind), env: { SPYGLASS_INGEST_RATE_LIMIT: '0.2' } });
    other = await createTenant(t);
  });
  afterAll(() => t?.close());

  it('answers 429 with Retry-After past the rate of a key, for that key only; nothing of the refused request is stored', async () => {
    const first = await t.request('POST', '/api/collector', { authToken: t.creds.projectApiKey, body: trace('rate-1', 2) });
    const second = await t.request('POST', '/api/collector', { authToken: t.creds.projectApiKey, body: trace('rate-2', 2) });
    const otherKey = await t.request('POST', '/api/collector', { authToken: other.projectToken, body: trace('rate-3', 2) });
    expect(first.status).toBe(200);
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(second.body.error).toMatchObject({ type: 'rate_limited', code: 'rate_limited' });
    expect(otherKey.status).toBe(200);
    expect(await spansOf(t, t.creds.project.id, ['rate-2'])).toBe(0);
    // OTLP routes are limited the same way.
    const otlp = await t.request('POST', '/v1/traces', { authToken: t.creds.projectApiKey, rawBody: '{"resourceSpans":[]}', headers: { 'content-type': 'application/json' } });
    expect(otlp.status).toBe(429);
    // Reads are not limited.
    expect((await t.request('POST', '/api/trace/search', { authToken: t.creds.projectApiKey, body: {} })).status).toBe(200);
  });
});

/** Opens a raw connection; resolves with what the server sent once it closes the connection. */
function rawConnection(baseUrl: string) {
  const { port } = new URL(baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('utf8')));
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  const connected = new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  return { socket, closed, connected };
}

describe('overload: slow clients cannot hold the server (pglite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite', {
      reopen: firstApps.get('pglite'),
      env: {
        SPYGLASS_HEADERS_TIMEOUT_SECONDS: '0.5',
        SPYGLASS_REQUEST_TIMEOUT_SECONDS: '1',
        SPYGLASS_IDLE_TIMEOUT_SECONDS: '0.5',
        SPYGLASS_MAX_CONNECTIONS: '4',
      },
    });
  });
  afterAll(() => t?.close());

  it('a slowloris client sending headers a byte at a time is cut off with 408', async () => {
    const c = rawConnection(t.baseUrl);
    await c.connected;
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => c.socket.writable && c.socket.write('X'), 100);
    const received = await c.closed;
    clearInterval(drip);
    expect(received).toMatch(/^HTTP\/1\.1 408/);
  });

  it('a client trickling its body is cut off', async () => {
    const c = rawConnection(t.baseUrl);
    await c.connected;
    c.socket.write(`POST /api/collector HTTP/1.1\r\nHost: x\r\nX-Auth-Token: ${t.creds.projectApiKey}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{`);
    const drip = setInterval(() => c.socket.writable && c.socket.write(' '), 100);
    const received = await c.closed;
    clearInterval(drip);
    expect(received).not.toMatch(/^HTTP\/1\.1 200/);
  });

  it('an idle keep-alive connection is closed', async () => {
    const c = rawConnection(t.baseUrl);
    await c.connected;
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const received = await c.closed;
    expect(received).toMatch(/^HTTP\/1\.1 200/);
  });

  it('connections past the cap are closed at once; the server still answers afterwards', async () => {
    const held = Array.from({ length: 4 }, () => rawConnection(t.baseUrl));
    await Promise.all(held.map((c) => c.connected));
    // Keep the four busy sending headers slowly (the header timeout would close them in 0.5 s).
    for (const c of held) c.socket.write('GET /healthz HTTP/1.1\r\n');
    await new Promise((r) => setTimeout(r, 50));
    const extra = rawConnection(t.baseUrl);
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await extra.closed).toBe('');
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});
