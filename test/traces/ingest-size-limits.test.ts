import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDatabaseKinds, startApp, type DatabaseKind, type TestApp } from '../support/harness.ts';
import { otlpJsonRequest, stringAttributes } from '../support/otlp-json.ts';

const T0 = Date.now() - 3_600_000;
const LIMIT = 4096;

/** An OTLP/JSON request of one span with the given attributes. */
const otlpSpan = (traceId: string, spanId: string, attributes: Record<string, string>) =>
  JSON.stringify(
    otlpJsonRequest('limits', [
      { traceId, spanId, name: 'big', startTimeUnixNano: String(T0 * 1e6), endTimeUnixNano: String((T0 + 5) * 1e6), attributes: stringAttributes(attributes) },
    ]),
  );

const postGzip = (t: TestApp, body: string | Buffer) =>
  t.request('POST', '/v1/traces', {
    authToken: t.creds.projectApiKey,
    rawBody: gzipSync(body),
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
  });

const spanOf = (t: TestApp, traceId: string, spanId: string) => t.request('GET', `/api/trace/${traceId}/spans/${spanId}`, { authToken: t.creds.projectApiKey });

/**
 * The file's database per kind, opened by the first block's app: the next block's app (another
 * environment) reopens it once the first has stopped, instead of opening a database of its own
 * (about 2 s of CPU on PGlite). Closed after the file.
 */
const firstApps = new Map<DatabaseKind, TestApp>();
afterAll(async () => {
  for (const app of firstApps.values()) await app.close();
});

describe.each(appDatabaseKinds)('ingest: values past SPYGLASS_MAX_ATTRIBUTE_BYTES are cut, not stored whole (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind, { env: { SPYGLASS_MAX_ATTRIBUTE_BYTES: String(LIMIT) } });
    firstApps.set(kind, t);
  });
  // Stopped (its requests and timers end); its database stays for the next block.
  afterAll(() => t?.stop());

  it('an OTLP attribute and input past the cap keep their first part (cut between UTF-8 characters), the span is marked, and the partial success says so with nothing rejected; a value of exactly the cap is kept whole', async () => {
    // 'é' is 2 bytes and '€' 3 in UTF-8: 4096 bytes fall inside one of them.
    const big = 'a€é'.repeat(2_000);
    const input = 'question '.repeat(1_000);
    const traceId = '5a000000000000000000000000000001';
    const spanId = '5a00000000000001';
    const answer = await postGzip(t, otlpSpan(traceId, spanId, { 'app.big': big, 'app.small': 'kept', 'openinference.span.kind': 'CHAIN', 'input.value': input }));
    expect(answer.status).toBe(200);
    expect(answer.body.partialSuccess.rejectedSpans).toBe('0');
    expect(answer.body.partialSuccess.errorMessage).toContain(`span ${spanId}`);
    expect(answer.body.partialSuccess.errorMessage).toContain('app.big');
    expect(answer.body.partialSuccess.errorMessage).toContain('input');

    const span = await spanOf(t, traceId, spanId);
    expect(span.status).toBe(200);
    const stored = span.body.attributes['app.big'] as string;
    expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(LIMIT);
    expect(Buffer.byteLength(stored)).toBeGreaterThan(LIMIT - 3);
    expect(big.startsWith(stored)).toBe(true);
    expect(span.body.attributes['app.small']).toBe('kept');
    expect(span.body.attributes['spyglass.truncated']).toEqual(['app.big', 'input']);
    expect(span.body.input.type).toBe('text');
    expect(Buffer.byteLength(span.body.input.value)).toBeLessThanOrEqual(LIMIT);
    expect(input.startsWith(span.body.input.value)).toBe(true);

    // A value of exactly the cap is stored whole, the span unmarked, and the answer empty.
    const fits = await postGzip(t, otlpSpan(traceId, '5a00000000000002', { 'app.big': 'x'.repeat(LIMIT) }));
    expect(fits.status).toBe(200);
    expect(fits.body).toEqual({});
    const whole = await spanOf(t, traceId, '5a00000000000002');
    expect(whole.body.attributes['app.big']).toBe('x'.repeat(LIMIT));
    expect(whole.body.attributes['spyglass.truncated']).toBeUndefined();
  });

  it("the collector's input, output and attributes are cut the same way", async () => {
    const answer = await t.request('POST', '/api/collector', {
      authToken: t.creds.projectApiKey,
      body: {
        trace_id: 'limits-collector',
        spans: [
          {
            span_id: 'c1',
            type: 'llm',
            input: { type: 'text', value: 'i'.repeat(10_000) },
            output: { type: 'json', value: { answer: 'o'.repeat(10_000) } },
            attributes: { note: 'n'.repeat(10_000), small: 1 },
            timestamps: { started_at: T0, finished_at: T0 + 5 },
          },
        ],
      },
    });
    expect(answer.status).toBe(200);
    const span = await spanOf(t, 'limits-collector', 'c1');
    expect(span.body.attributes['spyglass.truncated']).toEqual(['note', 'input', 'output']);
    expect(span.body.attributes.small).toBe(1);
    expect(Buffer.byteLength(span.body.attributes.note)).toBeLessThanOrEqual(LIMIT);
    expect(Buffer.byteLength(span.body.input.value)).toBeLessThanOrEqual(LIMIT);
    expect(JSON.stringify(span.body.output.value).length).toBeLessThanOrEqual(LIMIT);
    expect(span.body.output.value.answer.startsWith('ooo')).toBe(true);
  });
});

describe.each(appDatabaseKinds)('ingest: the budget of decompressed bytes in flight (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    // The smallest budget (1 MiB): one body inflating to 8 MB fills it alone. A decode
    // deadline well past what decoding it takes on a loaded machine.
    t = await startApp(kind, { reopen: firstApps.get(kind), env: { SPYGLASS_INGEST_QUEUE_BYTES: String(1024 * 1024), SPYGLASS_INGEST_DECODE_TIMEOUT_SECONDS: '600' } });
  });
  afterAll(() => t?.close());

  it('past it a request answers 503 with Retry-After before it is inflated, and nothing of it is stored; the server keeps answering, and the request is stored when sent again', async () => {
    const flood = otlpSpan('5b000000000000000000000000000001', '5b00000000000001', { 'app.payload': 'x'.repeat(8_000_000) });
    const decoder = t.app.services.traces.ingestion.otlpDecoder;
    const first = postGzip(t, flood);
    while (decoder.inProgress === 0) await new Promise((r) => setTimeout(r, 1));
    const small = otlpSpan('5b000000000000000000000000000002', '5b00000000000002', { 'app.note': 'small' });
    const [shed, healthz] = await Promise.all([postGzip(t, small), t.request('GET', '/healthz')]);
    expect(shed.status).toBe(503);
    expect(Number(shed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(shed.body.error).toMatchObject({ type: 'unavailable', code: 'ingest_queue_full', message: expect.stringContaining('decompressed') });
    expect(healthz.status).toBe(200);

    const firstAnswer = await first;
    expect(firstAnswer.status).toBe(200);
    expect(firstAnswer.body.partialSuccess.errorMessage).toContain('app.payload');
    expect((await spanOf(t, '5b000000000000000000000000000002', '5b00000000000002')).status).toBe(404);
    const big = await spanOf(t, '5b000000000000000000000000000001', '5b00000000000001');
    expect(Buffer.byteLength(big.body.attributes['app.payload'])).toBe(1024 * 1024);

    expect((await postGzip(t, small)).status).toBe(200);
    expect((await spanOf(t, '5b000000000000000000000000000002', '5b00000000000002')).status).toBe(200);
  });

  it('a gzip body whose trailer says it inflates past the 64 MiB limit is refused with 413 at once; one whose trailer says less than it holds, with 400', async () => {
    const body = gzipSync(otlpSpan('5b000000000000000000000000000003', '5b00000000000003', { 'app.note': 'x'.repeat(10_000) }));
    const claimsTooMuch = Buffer.from(body);
    claimsTooMuch.writeUInt32LE(65 * 1024 * 1024, claimsTooMuch.length - 4);
    const claimsTooLittle = Buffer.from(body);
    claimsTooLittle.writeUInt32LE(100, claimsTooLittle.length - 4);
    const send = (raw: Buffer) =>
      t.request('POST', '/v1/traces', { authToken: t.creds.projectApiKey, rawBody: raw, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    const tooMuch = await send(claimsTooMuch);
    expect(tooMuch.status).toBe(413);
    expect(tooMuch.body.error.code).toBe('payload_too_large');
    const tooLittle = await send(claimsTooLittle);
    expect(tooLittle.status).toBe(400);
    expect(tooLittle.body.error.code).toBe('invalid_compression');
    expect((await spanOf(t, '5b000000000000000000000000000003', '5b00000000000003')).status).toBe(404);
  });
});
