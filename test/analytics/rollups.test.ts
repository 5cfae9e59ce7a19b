import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { pool } from '../../src/platform/task-pool.ts';
import { databaseKinds, useProjectApp, type TestApp, type Tenant } from '../support/harness.ts';
import { exactPercentile, expectWithinSketchBound } from '../support/percentiles.ts';

/**
 * Charts over whole hours read hourly rollups of the trace summaries, kept exact by the hours
 * each write marks (docs/architecture.md: Analytics rollups). Every answer here is compared
 * with the same request plus a text query every trace matches: a text query is always read
 * from the summaries themselves, so both must agree, bucket by bucket and to the percentile,
 * before and after the rollups are recomputed, after late spans, deletions and a dropped day,
 * over fixed and random ranges, and after thumbs and verdicts come late to old traces, change or
 * go. The percentiles themselves are checked against the exact ones of the latencies sent
 * (within the latency sketch's 1 %).
 */
const H = 3_600_000;
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-22T10:00:00Z');
const MODELS = ['gpt-4o-mini', 'anthropic/claude-3-5-haiku', 'gpt-4o', null];

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Span {
  id: string;
  at: number;
  ms: number;
  model: string | null;
  error?: boolean;
  cost: number;
  tokens: [number, number, number, number];
  parent?: string;
}

describe.each(databaseKinds)('analytics from hourly rollups (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let other: Tenant;
  useProjectApp(kind, (app) => ({ t, key, other } = app));

  const send = async (traceId: string, spans: Span[], token = key) => {
    const res = await t.request('POST', '/api/collector', {
      authToken: token,
      body: {
        trace_id: traceId,
        spans: spans.map((s) => ({
          span_id: s.id,
          ...(s.parent ? { parent_id: s.parent } : {}),
          type: s.model ? 'llm' : 'tool',
          ...(s.model ? { model: s.model } : {}),
          input: { type: 'text', value: `rollup probe ${traceId}` },
          output: { type: 'text', value: 'an answer' },
          metrics: { prompt_tokens: s.tokens[0], completion_tokens: s.tokens[1], cached_input_tokens: s.tokens[2], reasoning_tokens: s.tokens[3], cost: s.cost },
          ...(s.error ? { error: { message: 'boom' } } : {}),
          timestamps: { started_at: s.at, finished_at: s.at + s.ms },
        })),
      },
    });
    expect(res.status, res.text).toBe(200);
  };

  // Ranges: 40 days by day (the old days retention removes included), 3 days by hour, and a range with partial hours at both ends.
  const SHAPES: Record<string, Record<string, unknown>> = {
    'by day': { startDate: NOW - 40 * DAY, endDate: NOW, interval: 'day' },
    'by day, grouped by model': { startDate: NOW - 40 * DAY, endDate: NOW, interval: 'day', groupBy: 'model' },
    'by hour': { startDate: NOW - 3 * DAY, endDate: NOW, interval: 'hour' },
    'by hour, grouped by model': { startDate: NOW - 3 * DAY, endDate: NOW, interval: 'hour', groupBy: 'model' },
    'by day, UTC+2': { startDate: NOW - 40 * DAY, endDate: NOW, interval: 'day', utcOffsetMinutes: 120 },
    'by day, UTC-5, grouped by model': { startDate: NOW - 40 * DAY, endDate: NOW, interval: 'day', groupBy: 'model', utcOffsetMinutes: -300 },
    'by week, partial hours at both ends': { startDate: NOW - 20 * DAY - 17 * 60_000, endDate: NOW - 23 * 60_000, interval: 'week' },
    'by hour, UTC+5:30 (half hours: read live)': { startDate: NOW - 2 * DAY, endDate: NOW, interval: 'hour', utcOffsetMinutes: 330 },
  };

  const ask = async (body: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/analytics/timeseries', { authToken: key, body });
    expect(res.status, res.text).toBe(200);
    return { series: res.body.series, totals: res.body.totals, evaluations: res.body.evaluations };
  };
  const annotate = async (traceId: string, isThumbsUp: boolean) => {
    const res = await t.request('POST', `/api/annotations/trace/${traceId}`, { authToken: key, body: { comment: 'c', isThumbsUp } });
    expect(res.status, res.text).toBe(200);
    return res.body.data.id as string;
  };
  /** A verdict on the trace: failed when the output names the competitor. */
  const evaluate = async (traceId: string, output: string, name = 'Competitors') => {
    const res = await t.request('POST', '/api/evaluations/llm/competitor_blocklist/evaluate', {
      authToken: key,
      body: { data: { output }, settings: { competitors: ['Acme'] }, trace_id: traceId, name },
    });
    expect(res.status, res.text).toBe(200);
  };
  /** Every shape answers as it does read from the summaries (a text query every trace matches). */
  const expectExact = async () => {
    for (const [name, body] of Object.entries(SHAPES)) {
      const [rolled, live] = [await ask(body), await ask({ ...body, query: 'probe' })];
      expect(rolled, name).toEqual(live);
    }
  };
  const dirtyHours = async () => Number((await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM trace_hours_dirty WHERE project_id = ${t.creds.project.id}`))[0].n);
  const rolledHours = async () =>
    Number((await rows<{ n: number }>(t.db.orm, sql`SELECT count(DISTINCT hour)::int AS n FROM trace_rollups WHERE project_id = ${t.creds.project.id}`))[0].n);

  const r = random(7);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const traceOf = (i: number, at: number): Span[] => {
    const n = 1 + Math.floor(r() * 3);
    return Array.from({ length: n }, (_, j) => ({
      id: `s${i}-${j}`,
      ...(j ? { parent: `s${i}-0` } : {}),
      at: at + j * 1000,
      // Whole and odd latencies, many shared (a histogram of few bars) and some not.
      ms: r() < 0.5 ? pick([100, 250, 400]) : Math.floor(r() * 5000),
      model: pick(MODELS),
      error: r() < 0.1,
      cost: Math.round(r() * 1e6) / 1e8,
      tokens: [Math.floor(r() * 500), Math.floor(r() * 200), Math.floor(r() * 50), Math.floor(r() * 20)],
    }));
  };
  // Old days: day A holds the other project's trace too (its traces are deleted row by row), day B only ours (dropped whole).
  const dayA = Math.floor((NOW - 36 * DAY) / DAY) * DAY;
  const dayB = Math.floor((NOW - 34 * DAY) / DAY) * DAY;
  // Day C: single-span traces of known latencies (0 ms, odd, up to a minute), the only ones that day.
  const dayC = Math.floor((NOW - 10 * DAY) / DAY) * DAY;
  const latenciesC = [0, 1, 2, 7, ...Array.from({ length: 70 }, () => Math.floor(r() ** 3 * 60_000))];

  beforeAll(async () => {
    // 160 traces over the last 6 days, 12 in the two old days, and one crossing midnight. Made
    // first, in the order the generator always made them, then sent eight at a time.
    const traces: [string, Span[], string?][] = [];
    for (let i = 0; i < 160; i++) traces.push([`rt-${i}`, traceOf(i, NOW - Math.floor(r() * 6 * DAY) - 60_000)]);
    for (let i = 160; i < 172; i++) traces.push([`rt-${i}`, traceOf(i, (i < 166 ? dayA : dayB) + Math.floor(r() * DAY * 0.9))]);
    const midnight = Math.floor(NOW / DAY) * DAY - DAY;
    traces.push([
      'rt-midnight',
      [
        { id: 'm-0', at: midnight - 10 * 60_000, ms: 30 * 60_000, model: 'gpt-4o', cost: 0.001, tokens: [10, 10, 0, 0] },
        { id: 'm-1', at: midnight + 5 * 60_000, ms: 1000, model: 'gpt-4o-mini', parent: 'm-0', cost: 0.002, tokens: [5, 5, 0, 0] },
      ],
    ]);
    for (const [i, ms] of latenciesC.entries()) {
      traces.push([`rt-c${i}`, [{ id: `c${i}`, at: dayC + Math.floor(r() * 20 * H), ms, model: pick(MODELS), cost: 0.001, tokens: [1, 1, 0, 0] }]]);
    }
    traces.push(['theirs', [{ id: 'o-0', at: dayA + H, ms: 10, model: 'gpt-4o', cost: 0, tokens: [1, 1, 0, 0] }], other.projectToken]);
    await pool(traces.map(([id, spans, token]) => () => send(id, spans, token)), 8);
    // Thumbs and verdicts (two evaluation names) on every fourth trace, the old days' included.
    const reviews: (() => Promise<unknown>)[] = [];
    for (let i = 0; i < 172; i += 4) {
      const [up, named] = [r() < 0.6, r() < 0.3];
      reviews.push(() => annotate(`rt-${i}`, up), () => evaluate(`rt-${i + 1}`, named ? 'Try Acme.' : 'Fine.', i % 8 ? 'Competitors' : 'Rivals'));
    }
    await pool(reviews, 8);
    await annotate('rt-midnight', false);
  });

  it('answers as the summaries do while every hour is dirty, and once the hours are rolled up', async () => {
    expect(await dirtyHours()).toBeGreaterThan(0);
    await expectExact();
    await t.app.services.traces.rollUp();
    expect(await dirtyHours()).toBe(0);
    expect(await rolledHours()).toBeGreaterThan(50);
    await expectExact();
  });

  it('answers latency percentiles within 1 % of the exact ones, live and from the rollups', async () => {
    const day = { startDate: dayC, endDate: dayC + DAY - 1, interval: 'day' };
    const check = async (body: Record<string, unknown>) => {
      const [bucket] = (await ask(body)).series[0].buckets;
      expect(bucket.traces).toBe(latenciesC.length);
      for (const [name, p] of [['p50', 0.5], ['p95', 0.95], ['p99', 0.99]] as const) {
        expectWithinSketchBound(bucket.latency_ms[name], exactPercentile(latenciesC, p), name);
      }
    };
    await check({ ...day, query: 'probe' });
    await t.app.services.traces.rollUp();
    await check(day);
    // A trace of 0 ms: its own bucket, standing for 0 exactly.
    const few = { startDate: dayC, endDate: dayC + DAY - 1, interval: 'day', query: 'rt-c0' };
    const [zero] = (await ask(few)).series[0].buckets;
    expect(zero.latency_ms).toEqual({ p50: 0, p95: 0, p99: 0 });
  });

  it('answers random ranges, intervals, time zones and groups as the summaries do', async () => {
    await t.app.services.traces.rollUp();
    const offsets = [0, 60, -300, 120, 330, -570];
    for (let i = 0; i < 12; i++) {
      const a = NOW - Math.floor(r() * 41 * DAY);
      const b = NOW - Math.floor(r() * 41 * DAY);
      const [startDate, endDate] = a < b ? [a, b] : [b, a];
      const interval = endDate - startDate > 60 * H ? pick(['day', 'week']) : pick(['hour', 'day']);
      const body = { startDate, endDate, interval, utcOffsetMinutes: pick(offsets), ...(r() < 0.5 ? { groupBy: 'model' } : {}) };
      expect(await ask(body), JSON.stringify(body)).toEqual(await ask({ ...body, query: 'probe' }));
    }
  });

  it('stays exact after late spans (a trace moving to an earlier hour, another day) before and after the rollups catch up', async () => {
    await t.app.services.traces.rollUp();
    // A late span hours before its trace started moves the trace to another hour (and day).
    await send('rt-3', [{ id: 'late-1', at: NOW - 5 * DAY - 7 * H, ms: 42, model: 'gpt-4o', cost: 0.5, tokens: [1, 2, 3, 4], error: true }]);
    await send('rt-midnight', [{ id: 'm-late', at: Math.floor(NOW / DAY) * DAY - DAY - 3 * H, ms: 10, model: null, cost: 0, tokens: [0, 0, 0, 0] }]);
    // A new trace in an hour already rolled up.
    await send('rt-new', traceOf(500, NOW - 2 * DAY));
    expect(await dirtyHours()).toBeGreaterThan(0);
    await expectExact();
    await t.app.services.traces.rollUp();
    expect(await dirtyHours()).toBe(0);
    await expectExact();
  });

  it('stays exact after retention deletes traces row by row and drops a day whole', async () => {
    await t.app.services.traces.rollUp();
    const before = await ask(SHAPES['by day']);
    for (const [projectId, token] of [
      [t.creds.project.id, t.creds.adminApiKey],
      [other.projectId, other.adminToken],
    ]) {
      const res = await t.request('PATCH', `/api/projects/${projectId}`, { token, body: { retentionDays: 30 } });
      expect(res.status, res.text).toBe(200);
    }
    await t.app.services.traces.sweepRetention();
    const after = await ask(SHAPES['by day']);
    expect(after.totals.traces).toBe(before.totals.traces - 12);
    await expectExact();
    await t.app.services.traces.rollUp();
    await expectExact();
  });

  it('stays exact after a thumb and a verdict come late to an old trace, change and go', async () => {
    await t.app.services.traces.rollUp();
    expect(await dirtyHours()).toBe(0);
    const day = SHAPES['by day'];
    const before = await ask(day);
    const failed = (a: Awaited<ReturnType<typeof ask>>) =>
      (a.evaluations as { evaluator: string; buckets: { failed: number }[] }[]).filter((e) => e.evaluator === 'Competitors').flatMap((e) => e.buckets).reduce((n, b) => n + b.failed, 0);
    // A trace of days ago, rolled up without a thumb or verdict.
    const id = await annotate('rt-7', true);
    await evaluate('rt-9', 'Try Acme.');
    expect(await dirtyHours()).toBeGreaterThan(0);
    const late = await ask(day);
    expect(late.totals.thumbs_up).toBe(before.totals.thumbs_up + 1);
    expect(failed(late)).toBe(failed(before) + 1);
    await expectExact();
    await t.app.services.traces.rollUp();
    expect(await dirtyHours()).toBe(0);
    await expectExact();
    expect(await ask(day)).toEqual(late);
    // The thumb turned down, then deleted.
    const flip = await t.request('PATCH', `/api/annotations/${id}`, { authToken: key, body: { comment: 'c', isThumbsUp: false } });
    expect(flip.status, flip.text).toBe(200);
    expect(await dirtyHours()).toBeGreaterThan(0);
    await t.app.services.traces.rollUp();
    const flipped = await ask(day);
    expect(flipped.totals.thumbs_up).toBe(before.totals.thumbs_up);
    expect(flipped.totals.thumbs_down).toBe(before.totals.thumbs_down + 1);
    await expectExact();
    const gone = await t.request('DELETE', `/api/annotations/${id}`, { authToken: key });
    expect(gone.status, gone.text).toBe(200);
    expect(await dirtyHours()).toBeGreaterThan(0);
    await t.app.services.traces.rollUp();
    expect((await ask(day)).totals.thumbs_down).toBe(before.totals.thumbs_down);
    await expectExact();
  });

  it('would answer from stale thumb and verdict rollups if a write left its hour unmarked', async () => {
    await t.app.services.traces.rollUp();
    await annotate('rt-11', false);
    await evaluate('rt-13', 'Fine.', 'Rivals');
    const marks = await rows<{ hour: number }>(t.db.orm, sql`SELECT hour::float8 AS hour FROM trace_hours_dirty WHERE project_id = ${t.creds.project.id}`);
    expect(marks.length).toBeGreaterThan(0);
    await t.db.orm.execute(sql`DELETE FROM trace_hours_dirty WHERE project_id = ${t.creds.project.id}`);
    const body = SHAPES['by day, grouped by model'];
    const [rolled, live] = [await ask(body), await ask({ ...body, query: 'probe' })];
    expect(rolled.series).not.toEqual(live.series);
    expect(rolled.evaluations).not.toEqual(live.evaluations);
    for (const m of marks) await t.db.orm.execute(sql`INSERT INTO trace_hours_dirty (project_id, hour) VALUES (${t.creds.project.id}, ${Number(m.hour)})`);
    expect(await ask(body)).toEqual(await ask({ ...body, query: 'probe' }));
  });

  it('would answer from stale rollups if a write left its hour unmarked (what the comparisons above catch)', async () => {
    await t.app.services.traces.rollUp();
    await send('rt-5', [{ id: 'late-2', at: NOW - 4 * DAY - 5 * H, ms: 77, model: 'gpt-4o', cost: 0.25, tokens: [9, 9, 9, 9] }]);
    // As if the write had not marked its hours.
    const marks = await rows<{ hour: number }>(t.db.orm, sql`SELECT hour::float8 AS hour FROM trace_hours_dirty WHERE project_id = ${t.creds.project.id}`);
    expect(marks.length).toBeGreaterThan(0);
    await t.db.orm.execute(sql`DELETE FROM trace_hours_dirty WHERE project_id = ${t.creds.project.id}`);
    const body = SHAPES['by day'];
    expect(await ask(body)).not.toEqual(await ask({ ...body, query: 'probe' }));
    // The marks back, the answer is exact again.
    for (const m of marks) await t.db.orm.execute(sql`INSERT INTO trace_hours_dirty (project_id, hour) VALUES (${t.creds.project.id}, ${Number(m.hour)})`);
    expect(await ask(body)).toEqual(await ask({ ...body, query: 'probe' }));
  });

  it('reads a range ending inside an hour from that hour\'s rollup only when no trace of the hour starts after the end', async () => {
    // Two traces in an hour of a day nothing else is in: 10 and 40 minutes past.
    const h0 = Math.floor((NOW - 12 * DAY) / H) * H + 5 * H;
    await send('rt-end-a', [{ id: 'end-a', at: h0 + 10 * 60_000, ms: 123, model: 'gpt-4o', cost: 0.01, tokens: [1, 1, 0, 0] }]);
    await send('rt-end-b', [{ id: 'end-b', at: h0 + 40 * 60_000, ms: 456, model: null, cost: 0.02, tokens: [2, 2, 0, 0], error: true }]);
    await annotate('rt-end-b', true);
    await evaluate('rt-end-b', 'Try Acme.');
    await t.app.services.traces.rollUp();
    expect(await dirtyHours()).toBe(0);
    // Ending at 20 minutes past, the hour's second trace is after the end; at 50, the hour is whole.
    for (const [end, traces] of [
      [h0 + 20 * 60_000, 1],
      [h0 + 50 * 60_000, 2],
    ] as const) {
      for (const groupBy of [{}, { groupBy: 'model' }]) {
        const body = { startDate: h0 - 2 * DAY, endDate: end, interval: 'day', ...groupBy };
        const rolled = await ask(body);
        expect(rolled.totals.traces, JSON.stringify(body)).toBe(traces);
        expect(rolled.totals.thumbs_up).toBe(traces - 1);
        expect(rolled, JSON.stringify(body)).toEqual(await ask({ ...body, query: 'probe' }));
      }
    }
  });
});
