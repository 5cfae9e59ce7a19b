import { beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type TestApp, type Tenant } from '../support/harness.ts';
import { exactPercentile, expectWithinSketchBound } from '../support/percentiles.ts';

const DAY1 = Date.parse('2026-11-20T00:00:00Z');
const DAY2 = Date.parse('2026-11-21T00:00:00Z');
const RANGE = { startDate: '2026-11-20T00:00:00Z', endDate: DAY2 + 86_400_000 - 1 };

interface TraceSpec {
  id: string;
  at: number;
  ms: number;
  model: string;
  user?: string;
  labels?: string[];
  error?: boolean;
  cost: number;
  tokens: [prompt: number, completion: number, cached: number, reasoning: number];
  text?: string;
  extraSpan?: boolean;
}

describe.each(databaseKinds)('POST /api/analytics/timeseries (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let other: Tenant;
  useProjectApp(kind, (app) => ({ t, key, other } = app));

  const send = (s: TraceSpec) =>
    t.request('POST', '/api/collector', {
      authToken: key,
      body: {
        trace_id: s.id,
        metadata: { user_id: s.user ?? null, labels: s.labels ?? [] },
        spans: [
          {
            span_id: `${s.id}-llm`,
            type: 'llm',
            model: s.model,
            input: { type: 'text', value: s.text ?? 'hello there' },
            output: { type: 'text', value: 'an answer' },
            metrics: { prompt_tokens: s.tokens[0], completion_tokens: s.tokens[1], cached_input_tokens: s.tokens[2], reasoning_tokens: s.tokens[3], cost: s.cost },
            ...(s.error ? { error: { message: 'boom' } } : {}),
            timestamps: { started_at: s.at, finished_at: s.at + s.ms },
          },
          ...(s.extraSpan ? [{ span_id: `${s.id}-tool`, parent_id: `${s.id}-llm`, type: 'tool', timestamps: { started_at: s.at + 10, finished_at: s.at + 20 } }] : []),
        ],
      },
    });
  const series = (body: Record<string, unknown>, via: { key?: string } = {}) =>
    t.request('POST', '/api/analytics/timeseries', { authToken: via.key ?? key, body: { ...RANGE, interval: 'day', ...body } });

  beforeAll(async () => {
    const traces: TraceSpec[] = [
      { id: 'an-a1', at: DAY1 + 3_600_000, ms: 100, model: 'openai/gpt-4o-mini', user: 'alice', labels: ['prod'], cost: 0.01, tokens: [100, 20, 50, 5], text: 'refund please' },
      { id: 'an-a2', at: DAY1 + 7_200_000, ms: 300, model: 'gpt-4o-mini', user: 'bob', labels: ['prod', 'beta'], error: true, cost: 0.02, tokens: [200, 40, 0, 0] },
      { id: 'an-a3', at: DAY1 + 10_800_000, ms: 500, model: 'anthropic/claude-3-5-haiku', user: 'alice', cost: 0.03, tokens: [300, 60, 100, 10] },
      { id: 'an-b1', at: DAY2 + 3_600_000, ms: 1000, model: 'GPT-4o-mini', user: 'carol', labels: ['beta'], cost: 0.04, tokens: [400, 80, 0, 20], extraSpan: true },
      // Outside the range.
      { id: 'an-c1', at: DAY1 - 5 * 86_400_000, ms: 50, model: 'gpt-4o-mini', user: 'alice', cost: 1, tokens: [1, 1, 0, 0] },
    ];
    for (const s of traces) expect((await send(s)).status).toBe(200);
    const annotate = (traceId: string, isThumbsUp: boolean) =>
      t.request('POST', `/api/annotations/trace/${traceId}`, { authToken: key, body: { comment: 'c', isThumbsUp } });
    expect((await annotate('an-a1', true)).status).toBe(200);
    expect((await annotate('an-a2', false)).status).toBe(200);
    expect((await annotate('an-a2', true)).status).toBe(200);
    expect((await annotate('an-c1', true)).status).toBe(200);
    const evaluate = (traceId: string, output: string) =>
      t.request('POST', '/api/evaluations/llm/competitor_blocklist/evaluate', {
        authToken: key,
        body: { data: { output }, settings: { competitors: ['Acme'] }, trace_id: traceId, name: 'Competitors' },
      });
    expect((await evaluate('an-a1', 'We are the best.')).body[0].passed).toBe(true);
    expect((await evaluate('an-a2', 'Try Acme.')).body[0].passed).toBe(false);
    expect((await evaluate('an-b1', 'Fine.')).body[0].passed).toBe(true);
  });

  it('counts, sums and percentiles per day, with empty buckets and totals', async () => {
    const res = await series({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ interval: 'day', intervalMs: 86_400_000, startDate: DAY1, endDate: RANGE.endDate });
    expect(res.body.series).toHaveLength(1);
    const [s] = res.body.series;
    expect(s.group).toBeNull();
    expect(s.buckets.map((b: { start: number }) => b.start)).toEqual([DAY1, DAY2]);
    const [d1, d2] = s.buckets;
    expect(d1).toMatchObject({ traces: 3, spans: 3, errors: 1, thumbs_up: 2, thumbs_down: 1, tokens: { prompt: 600, completion: 120, cached: 150, reasoning: 15 } });
    expect(d1.error_rate).toBeCloseTo(1 / 3, 10);
    expect(d1.cost).toBeCloseTo(0.06, 10);
    // percentile_cont over 100, 300, 500 ms, within the sketch's 1 %
    for (const [name, p] of [['p50', 0.5], ['p95', 0.95], ['p99', 0.99]] as const) expectWithinSketchBound(d1.latency_ms[name], exactPercentile([100, 300, 500], p), name);
    expect(d2).toMatchObject({ traces: 1, spans: 2, errors: 0, error_rate: 0, thumbs_up: 0, thumbs_down: 0, tokens: { prompt: 400, completion: 80, cached: 0, reasoning: 20 } });
    // One trace: every percentile is its bucket's value.
    expectWithinSketchBound(d2.latency_ms.p50, 1000);
    expect(d2.latency_ms.p95).toBe(d2.latency_ms.p50);
    expect(d2.latency_ms.p99).toBe(d2.latency_ms.p50);
    expect(res.body.totals).toMatchObject({ traces: 4, spans: 5, errors: 1, thumbs_up: 2, thumbs_down: 1, tokens: { prompt: 1000, completion: 200, cached: 150, reasoning: 35 } });
    expect(res.body.totals.cost).toBeCloseTo(0.1, 10);
    expect(res.body.evaluations).toEqual([
      {
        evaluator: 'Competitors',
        type: 'llm/competitor_blocklist',
        buckets: [
          { start: DAY1, passed: 1, failed: 1, pass_rate: 0.5 },
          { start: DAY2, passed: 1, failed: 0, pass_rate: 1 },
        ],
      },
    ]);
  });

  it("days start at the reader's midnight when the request gives its offset from UTC", async () => {
    const H = 3_600_000;
    const starts = (body: { series: { buckets: { start: number; traces: number }[] }[] }) => body.series[0].buckets.map((b) => [b.start, b.traces]);
    // UTC-5: the three traces of 01:00-03:00 UTC on the 20th were the evening of the 19th there.
    const west = await series({ utcOffsetMinutes: -300 });
    expect(west.status, west.text).toBe(200);
    expect(starts(west.body)).toEqual([
      [DAY1 - 19 * H, 3],
      [DAY1 + 5 * H, 1],
      [DAY2 + 5 * H, 0],
    ]);
    // UTC+1: the same day as in UTC, starting an hour earlier.
    const east = await series({ utcOffsetMinutes: 60 });
    expect(starts(east.body)).toEqual([
      [DAY1 - H, 3],
      [DAY2 - H, 1],
      [DAY2 + 23 * H, 0],
    ]);
    expect(west.body.evaluations[0].buckets.map((b: { start: number }) => b.start)).toEqual([DAY1 - 19 * H, DAY1 + 5 * H, DAY2 + 5 * H]);
    expect(west.body.totals.traces).toBe(4);
    const bad = await series({ utcOffsetMinutes: 900 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.meta.field).toBe('body.utcOffsetMinutes');
  });

  it('auto picks the finest interval with at most 200 buckets; hours are filled with zeros', async () => {
    const day = await series({ interval: 'auto', startDate: DAY1, endDate: DAY1 + 86_400_000 - 1 });
    expect(day.body.interval).toBe('hour');
    expect(day.body.series[0].buckets).toHaveLength(24);
    expect(day.body.series[0].buckets.map((b: { traces: number }) => b.traces).filter((n: number) => n > 0)).toEqual([1, 1, 1]);
    expect(day.body.series[0].buckets[0]).toMatchObject({ traces: 0, cost: 0, error_rate: null, latency_ms: { p50: null, p95: null, p99: null } });
    expect((await series({ interval: 'auto', startDate: DAY1, endDate: DAY1 + 3_600_000 })).body.interval).toBe('minute');
    expect((await series({ interval: 'auto', startDate: DAY1 - 30 * 86_400_000, endDate: DAY1 })).body.interval).toBe('day');
    const weeks = await series({ interval: 'week', startDate: DAY1 - 30 * 86_400_000, endDate: RANGE.endDate });
    // Weeks start on Monday, UTC.
    expect(new Date(weeks.body.series[0].buckets[0].start).getUTCDay()).toBe(1);
    expect(weeks.body.totals.traces).toBe(5);
  });

  it('groups by normalized model name, label and user; a trace counts in each of its labels', async () => {
    const byModel = await series({ groupBy: 'model' });
    expect(byModel.status).toBe(200);
    expect(byModel.body.series.map((s: { group: string; buckets: { traces: number }[] }) => [s.group, s.buckets.map((b) => b.traces)])).toEqual([
      ['gpt-4o-mini', [2, 1]],
      ['claude-3-5-haiku', [1, 0]],
    ]);
    const mini = byModel.body.series[0].buckets[0];
    expect(mini.cost).toBeCloseTo(0.03, 10);
    expect(mini).toMatchObject({ thumbs_up: 2, thumbs_down: 1, errors: 1 });
    expect(byModel.body.totals.traces).toBe(4);

    const byLabel = await series({ groupBy: 'label' });
    const labels = Object.fromEntries(byLabel.body.series.map((s: { group: string | null; buckets: { traces: number }[] }) => [String(s.group), s.buckets.map((b) => b.traces)]));
    expect(labels).toEqual({ prod: [2, 0], beta: [1, 1], null: [1, 0] });
    // Totals count each trace once.
    expect(byLabel.body.totals).toMatchObject({ traces: 4, thumbs_up: 2, thumbs_down: 1 });

    const byUser = await series({ groupBy: 'user' });
    expect(byUser.body.series.map((s: { group: string }) => s.group)).toEqual(['alice', 'bob', 'carol']);
    expect(byUser.body.series[0].buckets.map((b: { traces: number }) => b.traces)).toEqual([2, 0]);
  });

  it('keeps the 10 groups with most traces and folds the rest into "other"', async () => {
    const at = Date.parse('2026-11-12T12:00:00Z');
    for (let i = 0; i < 12; i++) {
      expect((await send({ id: `an-u${i}`, at: at + i, ms: 10, model: 'gpt-4o-mini', user: `user-${String(i).padStart(2, '0')}`, cost: 0, tokens: [1, 1, 0, 0] })).status).toBe(200);
    }
    expect((await send({ id: 'an-u0b', at: at + 20, ms: 10, model: 'gpt-4o-mini', user: 'user-11', cost: 0, tokens: [1, 1, 0, 0] })).status).toBe(200);
    const res = await series({ groupBy: 'user', startDate: '2026-11-12T00:00:00Z', endDate: '2026-11-12T23:59:59Z' });
    expect(res.body.series).toHaveLength(11);
    expect(res.body.series[0]).toMatchObject({ group: 'user-11', other: false });
    expect(res.body.series[0].buckets[0].traces).toBe(2);
    const last = res.body.series[10];
    expect(last).toMatchObject({ group: 'other', other: true });
    expect(last.buckets[0].traces).toBe(2);
    expect(res.body.totals.traces).toBe(13);
  });

  it('applies the trace search filters and query', async () => {
    const prod = await series({ filters: { labels: ['prod'] } });
    expect(prod.body.totals.traces).toBe(2);
    const mini = await series({ filters: { model: 'openai/gpt-4o-mini', has_error: false } });
    expect(mini.body.totals.traces).toBe(2);
    const failing = await series({ filters: { evaluation: { evaluator: 'Competitors', passed: false } } });
    expect(failing.body.totals.traces).toBe(1);
    const annotated = await series({ filters: { has_annotation: true, user_id: 'alice' } });
    expect(annotated.body.totals.traces).toBe(1);
    expect((await series({ query: 'refund' })).body.totals.traces).toBe(1);
  });

  it('sees only the calling project', async () => {
    const res = await series({}, { key: other.projectToken });
    expect(res.status).toBe(200);
    expect(res.body.totals.traces).toBe(0);
    expect(res.body.series).toHaveLength(1);
    expect(res.body.series[0].buckets).toHaveLength(2);
    expect(res.body.evaluations).toEqual([]);
  });

  it('refuses bad requests naming the field', async () => {
    const post = (body: unknown) => t.request('POST', '/api/analytics/timeseries', { authToken: key, body });
    const missing = await post({ endDate: DAY2 });
    expect(missing.status).toBe(400);
    expect(missing.body.error.meta.field).toBe('body.startDate');
    const reversed = await post({ startDate: DAY2, endDate: DAY1 });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.meta.field).toBe('endDate');
    const long = await post({ startDate: DAY1 - 401 * 86_400_000, endDate: DAY1 });
    expect(long.body.error.meta.field).toBe('endDate');
    const fine = await post({ startDate: DAY1 - 30 * 86_400_000, endDate: DAY1, interval: 'minute' });
    expect(fine.status).toBe(400);
    expect(fine.body.error.meta.field).toBe('interval');
    expect((await post({ ...RANGE, groupBy: 'colour' })).body.error.meta.field).toBe('body.groupBy');
    expect((await post({ ...RANGE, filters: { nope: 1 } })).status).toBe(400);
    expect((await t.request('POST', '/api/analytics/timeseries', { body: RANGE })).status).toBe(401);
  });
});
