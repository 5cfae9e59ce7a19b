import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';

const MIN = 60_000;
const W = 5 * MIN;

/**
 * Rules on latency, first-token time and evaluator results, and rules split by customer,
 * prompt version and evaluator: each measured from one value per trace (or per evaluation),
 * checked against the numbers the traces were sent with.
 */
describe.each(databaseKinds)('alert metrics and segments (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  // Each test gets its own hour of windows.
  let base = Date.parse('2026-11-21T10:00:00Z');
  const clock = new ManualClock(base);
  beforeAll(async () => {
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
  });
  afterAll(() => t.close());

  let n = 0;
  interface Spec {
    at: number;
    ms: number;
    firstTokenMs?: number;
    error?: boolean;
    customer?: string;
    prompt?: { handle: string; version: number };
    cost?: number;
  }
  async function send(s: Spec): Promise<string> {
    const id = `mt-${n++}`;
    const res = await t.request('POST', '/api/collector', {
      authToken: key,
      body: {
        trace_id: id,
        metadata: { ...(s.customer ? { customer_id: s.customer } : {}), ...(s.prompt ? { prompt_handle: s.prompt.handle, prompt_version: s.prompt.version } : {}) },
        spans: [
          {
            span_id: `${id}-1`,
            type: 'llm',
            model: 'gpt-4o-mini',
            input: { type: 'text', value: 'q' },
            output: { type: 'text', value: 'a' },
            ...(s.cost !== undefined ? { metrics: { cost: s.cost } } : {}),
            ...(s.error ? { error: { message: 'boom' } } : {}),
            timestamps: { started_at: s.at, finished_at: s.at + s.ms, ...(s.firstTokenMs !== undefined ? { first_token_at: s.at + s.firstTokenMs } : {}) },
          },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return id;
  }
  const rule = async (body: object) => {
    const res = await t.request('POST', '/api/alerts/rules', { token: key, body: { windowMinutes: 5, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id as string;
  };
  const history = async (id: string) => (await t.request('GET', `/api/alerts/rules/${id}/history?limit=1000`, { token: key })).body.data as Record<string, any>[];
  const bySegment = async (id: string) => Object.fromEntries((await history(id)).map((e) => [e.segment, e]));
  /** Moves to a fresh window: rules made now evaluate [start, start + 5 min). */
  const freshWindow = () => {
    base += 60 * MIN;
    clock.set(base + 30_000);
    return base;
  };
  const evaluateWindow = async (start: number) => {
    clock.set(start + W + 1_000);
    await t.app.services.alerts.alerts.evaluateDue();
  };

  it('answers 400 naming the field for a threshold or split that does not fit the metric', async () => {
    const field = async (body: object) => {
      const res = await t.request('POST', '/api/alerts/rules', { token: key, body: { name: 'x', windowMinutes: 5, ...body } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.error.meta.field as string;
    };
    const above = (value: number) => ({ kind: 'threshold', operator: 'above', value });
    expect(await field({ metric: { kind: 'trace_count' }, condition: above(2.5) })).toBe('condition.value');
    expect(await field({ metric: { kind: 'evaluator_error_rate', evaluator: 'example/word_count' }, condition: above(3) })).toBe('condition.value');
    expect(await field({ metric: { kind: 'first_token_p95' }, condition: above(-5) })).toBe('condition.value');
    expect(await field({ metric: { kind: 'latency_p95', evaluator: 'example/word_count' }, condition: above(100) })).toBe('metric.evaluator');
    expect(await field({ metric: { kind: 'evaluator_score_mean' }, condition: above(1) })).toBe('metric.evaluator');
    expect(await field({ metric: { kind: 'evaluator_score_mean', evaluator: 'no/such' }, condition: above(1) })).toBe('metric.evaluator');
    expect(await field({ metric: { kind: 'latency_p95' }, splitBy: 'evaluator', condition: above(100) })).toBe('splitBy');
    expect(await field({ metric: { kind: 'latency_p95' }, splitBy: 'region', condition: above(100) })).toBe('body.splitBy');
    // A split by evaluator needs no evaluator: every one is a segment.
    await rule({ name: 'Pass rates', metric: { kind: 'evaluator_pass_rate' }, splitBy: 'evaluator', condition: { kind: 'threshold', operator: 'below', value: 0.5 } });
  });

  it('decides latency and first-token percentiles on thresholds, and a latency change by the rank test', async () => {
    const start = freshWindow();
    // The window before: 20 quick traces (100 ms); the window: 100, 200, ..., 2,000 ms, first tokens at 50, 100, ..., 1,000 ms.
    for (let i = 0; i < 20; i++) await send({ at: start - W + i * 10_000, ms: 100, firstTokenMs: 40 });
    for (let i = 0; i < 20; i++) await send({ at: start + i * 10_000, ms: 100 * (i + 1), firstTokenMs: 50 * (i + 1) });
    const p95 = await rule({ name: 'p95', metric: { kind: 'latency_p95' }, condition: { kind: 'threshold', operator: 'above', value: 1800 } });
    const p99 = await rule({ name: 'p99', metric: { kind: 'latency_p99' }, condition: { kind: 'threshold', operator: 'above', value: 2000 } });
    const ttft = await rule({ name: 'ttft', metric: { kind: 'first_token_p50' }, condition: { kind: 'threshold', operator: 'above', value: 500, minCount: 20 } });
    const ttftFew = await rule({ name: 'ttft, 21 needed', metric: { kind: 'first_token_p50' }, condition: { kind: 'threshold', operator: 'above', value: 500, minCount: 21 } });
    const change = await rule({ name: 'median moved', metric: { kind: 'latency_p50' }, condition: { kind: 'change', baseline: { kind: 'previous' } } });
    const cost = await rule({ name: 'cost per trace moved', metric: { kind: 'cost_per_trace' }, condition: { kind: 'change', baseline: { kind: 'previous' } } });
    await evaluateWindow(start);

    // percentile_cont, as the analytics charts compute it: 1,900 + 0.05 * 100.
    const [e95] = await history(p95);
    expect(e95).toMatchObject({ windowStart: start, value: 1905, count: 20, decision: 'breach', state: 'firing', segmentsLeftOut: 0 });
    expect(e95.low).toBeLessThanOrEqual(1905);
    expect(e95.high).toBeGreaterThanOrEqual(1905);
    const [e99] = await history(p99);
    expect(e99).toMatchObject({ decision: 'calm', state: 'ok' });
    expect(e99.value).toBeCloseTo(1981, 6);
    expect((await history(ttft))[0]).toMatchObject({ value: 525, count: 20, decision: 'breach' });
    expect((await history(ttftFew))[0]).toMatchObject({ value: 525, count: 20, decision: 'too_few', state: 'ok' });
    const [moved] = await history(change);
    expect(moved).toMatchObject({ value: 1050, baseline: 100, count: 20, baselineCount: 20, decision: 'breach', state: 'firing' });
    expect(moved.pValue).toBeLessThan(1e-6);
    // The same cost (none priced) in both windows: no change.
    expect((await history(cost))[0]).toMatchObject({ decision: 'calm', state: 'ok' });
  });

  it('splits by customer and by prompt version, every segment, with links to each customer', async () => {
    const start = freshWindow();
    for (let i = 0; i < 10; i++) await send({ at: start + i * 20_000, ms: 100, customer: 'acme', error: i < 6, prompt: { handle: 'support', version: 2 } });
    for (let i = 0; i < 10; i++) await send({ at: start + i * 20_000 + 5_000, ms: 100, customer: 'globex', error: i < 1, prompt: { handle: 'support', version: 1 } });
    for (let i = 0; i < 4; i++) await send({ at: start + i * 20_000 + 7_000, ms: 100 });
    const byCustomer = await rule({ name: 'Errors by customer', metric: { kind: 'error_rate' }, splitBy: 'customer', condition: { kind: 'threshold', operator: 'above', value: 0.3 } });
    const byPrompt = await rule({ name: 'Traffic by prompt', metric: { kind: 'trace_count' }, splitBy: 'prompt', condition: { kind: 'threshold', operator: 'above', value: 5 } });
    await evaluateWindow(start);

    const customers = await bySegment(byCustomer);
    expect(Object.keys(customers).sort()).toEqual(['(none)', 'acme', 'globex']);
    expect(customers.acme).toMatchObject({ value: 0.6, count: 10, decision: 'breach', state: 'firing' });
    expect(customers.globex).toMatchObject({ value: 0.1, decision: 'calm', state: 'ok' });
    expect(customers['(none)']).toMatchObject({ value: 0, count: 4, decision: 'calm' });
    const prompts = await bySegment(byPrompt);
    expect(prompts['support:2']).toMatchObject({ value: 10, decision: 'breach' });
    expect(prompts['support:1']).toMatchObject({ value: 10, decision: 'breach' });
    expect(prompts['(none)']).toMatchObject({ value: 4, decision: 'calm' });

    const rules = (await t.request('GET', '/api/alerts/rules', { token: key })).body.data as { id: string; segments: { segment: string; state: string }[] }[];
    expect(rules.find((r) => r.id === byCustomer)!.segments.filter((s) => s.state === 'firing').map((s) => s.segment)).toEqual(['acme']);
    const [fired] = await rows<{ data: { segment: string; link: string; message: string } }>(
      t.db.orm,
      sql`SELECT data FROM events WHERE type = 'alert.firing' AND data->'rule'->>'id' = ${byCustomer}`,
    );
    expect(fired.data.segment).toBe('acme');
    expect(fired.data.message).toContain('Error rate for customer acme is 60.0 % (6 of 10)');
    expect(Object.fromEntries(new URL(fired.data.link, 'http://app').searchParams)).toMatchObject({ customer: 'acme', error: 'yes', from: new Date(start).toISOString() });
  });

  it("decides an evaluator's pass rate, mean score and error rate, split by evaluator", async () => {
    const start = freshWindow();
    const evaluate = (path: string, traceId: string, body: object) =>
      t.request('POST', `/api/evaluations/${path}/evaluate`, { authToken: key, body: { trace_id: traceId, ...body } });
    for (let i = 0; i < 6; i++) {
      const id = await send({ at: start + i * 30_000, ms: 100 });
      // Words: 1, 2, ..., 6 words.
      const words = await evaluate('example/word_count', id, { name: 'Words', data: { output: Array.from({ length: i + 1 }, () => 'w').join(' ') } });
      expect(words.body[0]).toMatchObject({ status: 'processed', score: i + 1 });
      // Competitors: 2 of 6 name Acme.
      const blocked = await evaluate('llm/competitor_blocklist', id, { name: 'Competitors', data: { output: i < 2 ? 'Try Acme.' : 'Fine.' }, settings: { competitors: ['Acme'] } });
      expect(blocked.body[0].passed).toBe(i >= 2);
    }
    const passRates = await rule({ name: 'Pass rates', metric: { kind: 'evaluator_pass_rate' }, splitBy: 'evaluator', condition: { kind: 'threshold', operator: 'below', value: 0.8 } });
    const meanWords = await rule({ name: 'Words', metric: { kind: 'evaluator_score_mean', evaluator: 'example/word_count' }, condition: { kind: 'threshold', operator: 'above', value: 3 } });
    const errors = await rule({ name: 'Evaluator errors', metric: { kind: 'evaluator_error_rate', evaluator: 'llm/competitor_blocklist' }, condition: { kind: 'threshold', operator: 'above', value: 0 } });
    await evaluateWindow(start);

    const rates = await bySegment(passRates);
    expect(rates.Competitors.value).toBeCloseTo(4 / 6, 10);
    expect(rates.Competitors).toMatchObject({ count: 6, decision: 'breach', state: 'firing' });
    // Word counts give a score, no verdict: too few verdicts to decide.
    expect(rates.Words).toMatchObject({ value: null, count: 0, decision: 'too_few' });
    expect((await history(meanWords))[0]).toMatchObject({ value: 3.5, count: 6, decision: 'breach' });
    expect((await history(errors))[0]).toMatchObject({ value: 0, count: 6, decision: 'calm' });
  });

  it('decides at most 1,000 segments a window and says in the history how many were left out', async () => {
    const start = freshWindow();
    // 1,002 customers with one trace each, in one OTLP request.
    const spans = Array.from({ length: 1002 }, (_, i) => ({
      traceId: (i + 1).toString(16).padStart(32, '0'),
      spanId: (i + 1).toString(16).padStart(16, '0'),
      name: 'call',
      kind: 3,
      startTimeUnixNano: String(BigInt(start + 1_000 + i) * 1_000_000n),
      endTimeUnixNano: String(BigInt(start + 1_100 + i) * 1_000_000n),
      attributes: [{ key: 'langwatch.customer.id', value: { stringValue: `c${String(i).padStart(4, '0')}` } }],
    }));
    const res = await t.request('POST', '/api/otel/v1/traces', { authToken: key, body: { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = await rule({ name: 'Every customer', metric: { kind: 'trace_count' }, splitBy: 'customer', condition: { kind: 'threshold', operator: 'above', value: 0 } });
    await evaluateWindow(start);
    const seen = await history(id);
    expect(seen).toHaveLength(1000);
    expect(new Set(seen.map((e) => e.segmentsLeftOut))).toEqual(new Set([2]));
    // Equal counts: the first 1,000 by name are kept.
    expect(seen.some((e) => e.segment === 'c1001')).toBe(false);
    expect(seen.every((e) => e.decision === 'breach')).toBe(true);
  });
});
