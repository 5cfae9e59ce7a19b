import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorBodySchema } from '../../src/modules/traces/collector.ts';
import { spanSchema, traceDetailSchema } from '../../src/modules/traces/schemas.ts';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { JSON_SHAPES, Rng, jsonValue, schemaPositions, setAt, type SchemaPosition } from '../support/fuzz.ts';

/**
 * Every position of the collector's body, read from its zod schema, with a value of each JSON
 * shape; the loosely typed positions (a payload's value beside each of its types, params,
 * attributes, metadata's extra keys) also with random nested values made of the names the
 * readers of such values look for. Nothing may answer 5xx; a 4xx must name the field and store
 * nothing; a 2xx must have stored the trace so that every reader answers it, in its documented
 * shape. SPYGLASS_FUZZ_SEED reproduces a run; `BENCH_ONLY=soak npm run bench` sends ~15x more random values
 * (SPYGLASS_SOAK, which only that bench sets).
 */
const LONG = process.env.SPYGLASS_SOAK === '1';
const SEED = Number(process.env.SPYGLASS_FUZZ_SEED ?? 20261125);
const RANDOM_PER_LOOSE_POSITION = LONG ? 200 : 10;
/** Names that chat messages, content parts, tool calls and typed values are read by. */
const MESSAGE_KEYS = [
  'role', 'content', 'text', 'type', 'value', 'parts', 'message', 'messages', 'tool_calls', 'toolCalls', 'tool_call_id',
  'name', 'function_call', 'function', 'arguments', 'id', 'image_url', 'url', 'index', 'finish_reason',
];

describe.each(databaseKinds)('collector bodies from its schema, each position with each JSON shape (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  it('answers no 5xx; a 4xx names the field and stores nothing; a 2xx stores a trace every reader answers', async () => {
    const positions = schemaPositions(collectorBodySchema as never).filter((p) => p.path.length > 0);
    const loose = positions.filter((p) => p.loose);
    // What the schema leaves open (params, attributes, metadata's extra keys, payload values), and
    // a payload's value beside each payload type.
    expect(loose.map((p) => p.path.join('.'))).toEqual(expect.arrayContaining(['spans.0.input.value', 'spans.0.params.fuzz_extra', 'spans.0.attributes.fuzz_extra', 'metadata.fuzz_extra']));
    for (const side of ['input', 'output']) {
      const besides = positions.filter((p) => p.path.join('.') === `spans.0.${side}.value`).map((p) => p.beside.find((b) => b.path.join('.') === `spans.0.${side}.type`)?.value);
      expect(new Set(besides)).toEqual(new Set(['chat_messages', 'text', 'json', 'raw']));
    }

    const rng = new Rng(SEED);
    const started = Date.now() - 60_000;
    const cases: { position: SchemaPosition; value: unknown }[] = [];
    for (const position of positions) {
      if (!position.loose) {
        // A typed position: one value of each JSON kind (most are refused; none may be a 5xx).
        for (const value of [null, 0, 'text', true, [], {}]) cases.push({ position, value });
        continue;
      }
      for (const value of JSON_SHAPES) cases.push({ position, value });
      for (let i = 0; i < RANDOM_PER_LOOSE_POSITION; i++) cases.push({ position, value: jsonValue(rng, MESSAGE_KEYS) });
    }

    const failures: string[] = [];
    let accepted = 0;
    const check = async (n: number, { position, value }: { position: SchemaPosition; value: unknown }) => {
      const traceId = `fz-${n}`;
      let body: unknown = {
        trace_id: traceId,
        // Every optional object present and valid, so a refusal can only be about the value put in.
        spans: [
          {
            span_id: 'root',
            type: 'llm',
            model: 'gpt-4o-mini',
            input: { type: 'text', value: 'hi' },
            output: { type: 'text', value: 'hello' },
            params: { temperature: 0.1 },
            metrics: { prompt_tokens: 1 },
            error: { message: 'failed' },
            attributes: { a: 1 },
            timestamps: { started_at: started, first_token_at: started + 5, finished_at: started + 10 },
          },
        ],
        metadata: { user_id: 'u' },
      };
      for (const b of position.beside) body = setAt(body, b.path, b.value);
      body = setAt(body, position.path, value);
      const where = `${position.path.join('.')}${position.beside.map((b) => ` (${b.path.join('.')}=${String(b.value)})`).join('')} = ${JSON.stringify(value)?.slice(0, 300)}`;
      const res = await t.request('POST', '/api/collector', { authToken: t.creds.projectApiKey, body });
      // The trace id itself may be what was made wrong: look for what the body named.
      const sentId = (body as { trace_id?: unknown }).trace_id;
      const storedId = typeof sentId === 'string' && /^[A-Za-z0-9_.:-]{1,128}$/.test(sentId) ? sentId : traceId;
      const detail = await t.request('GET', `/api/trace/${encodeURIComponent(storedId)}`, { authToken: t.creds.projectApiKey });
      if (res.status >= 500) return void failures.push(`${res.status} ${where}: ${res.text.slice(0, 300)}`);
      if (res.status >= 400) {
        if (detail.status !== 404) failures.push(`${res.status} but trace ${storedId} stored (${detail.status}): ${where}`);
        // The collector's error shape; a refused value is named by its path or a path inside it.
        const field: unknown = res.body?.error?.meta?.field;
        if (typeof res.body?.error?.message !== 'string' || typeof field !== 'string' || !`${field}.`.startsWith(`body.${position.path.join('.')}.`)) {
          failures.push(`${res.status} not naming ${position.path.join('.')}: ${where}: ${res.text.slice(0, 300)}`);
        }
        return;
      }
      accepted++;
      if (detail.status !== 200) return void failures.push(`2xx but the trace answers ${detail.status}: ${where}: ${detail.text.slice(0, 300)}`);
      const shape = traceDetailSchema.safeParse(detail.body);
      if (!shape.success) failures.push(`stored trace not in its documented shape: ${where}: ${JSON.stringify(shape.error.issues).slice(0, 400)}`);
      // The span route writes its answer its own way: read it where the value is open.
      if (!position.loose) return;
      const one = await t.request('GET', `/api/trace/${encodeURIComponent(storedId)}/spans/root`, { authToken: t.creds.projectApiKey });
      if (one.status !== 200 || !spanSchema.safeParse(one.body).success) failures.push(`span root answers ${one.status}, not in its documented shape: ${where}: ${one.text.slice(0, 300)}`);
    };

    // Four in flight; each case has its own trace id, so their order does not matter.
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < cases.length) {
          const n = next++;
          await check(n, cases[n]);
        }
      }),
    );
    const kinds = new Map<string, string>();
    for (const f of failures) if (!kinds.has(f.slice(0, 60))) kinds.set(f.slice(0, 60), f);
    expect(failures, `${failures.length} of ${cases.length} bodies failed (seed ${SEED}), first of each kind:\n${[...kinds.values()].slice(0, 40).join('\n')}`).toEqual([]);
    // The search list reads every stored summary.
    const search = await t.request('POST', '/api/trace/search', { authToken: t.creds.projectApiKey, body: { pageSize: 1000 } });
    expect(search.status).toBe(200);
    expect(accepted).toBeGreaterThan(0);
    console.log(`collector fuzz (${kind}): ${cases.length} bodies over ${positions.length} positions (${loose.length} loosely typed), ${accepted} accepted`);
  }, LONG ? 1_800_000 : 600_000);

  it('a null chat message is a 400 naming it, in the collector error shape', async () => {
    const now = Date.now();
    const res = await t.request('POST', '/api/collector', {
      authToken: t.creds.projectApiKey,
      body: { trace_id: 'null-message', spans: [{ span_id: 's', input: { type: 'chat_messages', value: [null] }, timestamps: { started_at: now - 10, finished_at: now } }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', meta: { field: 'body.spans.0.input.value.0' } });
    expect((await t.request('GET', '/api/trace/null-message', { authToken: t.creds.projectApiKey })).status).toBe(404);
  });
});
