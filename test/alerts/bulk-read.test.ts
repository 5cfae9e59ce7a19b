import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_KINDS } from '../../src/modules/alerts/schemas.ts';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';

const MIN = 60_000;
const W = 5 * MIN;
const WEEK = 7 * 24 * 60 * MIN;
/** Rules are made at T0: the scheduler evaluates the windows from T0 one by one. */
const T0 = Date.parse('2026-11-21T10:00:00Z');
const WINDOWS = 6;
/** What both reads measure for a window (state is left out: the preview starts 30 days earlier). */
const MEASURED = ['windowStart', 'windowEnd', 'segment', 'value', 'baseline', 'count', 'baselineCount', 'low', 'high', 'pValue', 'decision', 'segmentsLeftOut'] as const;

/**
 * The preview reads 30 days of windows in one grouped statement per source; the scheduler reads
 * each window alone. Rules of every metric kind, evaluated by the scheduler window by window,
 * and previewed: each window's measurement (value, baseline, counts, interval, p-value,
 * decision) is the same both ways.
 */
describe.each(databaseKinds)('alert windows read in bulk and one by one (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  const clock = new ManualClock(T0 - 10 * MIN);
  const configs: Record<string, string> = {};
  beforeAll(async () => {
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
  });
  afterAll(() => t.close());

  let n = 0;
  /** Window k (from T0): 6 + 2k traces over two models, errors, latencies, first tokens, costs and tokens that vary; a jump in window 3. */
  async function windowTraffic(origin: number, k: number, reviewed: boolean) {
    const count = 6 + 2 * Math.max(k, 0);
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const id = `br-${n++}`;
        const at = origin + k * W + Math.floor((i * W) / count) + 1;
        const jump = k === 3;
        const ms = (jump ? 900 : 100) + ((i * 37) % 200);
        const res = await t.request('POST', '/api/collector', {
          authToken: key,
          body: {
            trace_id: id,
            metadata: { labels: ['bulk'] },
            spans: [
              {
                span_id: `${id}-1`,
                type: 'llm',
                model: i % 2 ? 'gpt-4o' : 'claude-3-5-haiku',
                input: { type: 'text', value: 'q' },
                output: { type: 'text', value: 'a' },
                metrics: { cost: 0.001 * (1 + (i % 5)) * (jump ? 3 : 1), prompt_tokens: 100 + i * 7, completion_tokens: 20 + (i % 4) * 5 },
                ...(i % (jump ? 2 : 5) === 0 ? { error: { message: 'boom' } } : {}),
                timestamps: { started_at: at, finished_at: at + ms, ...(i % 4 !== 3 ? { first_token_at: at + Math.floor(ms / 3) } : {}) },
              },
            ],
          },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        if (!reviewed) return;
        const evaluate = (path: string, body: object) => t.request('POST', `/api/evaluations/${path}/evaluate`, { authToken: key, body: { trace_id: id, ...body } });
        expect((await evaluate('example/word_count', { name: 'Words', data: { output: Array.from({ length: 1 + ((i + k) % 6) }, () => 'w').join(' ') } })).status).toBe(200);
        expect((await evaluate('llm/competitor_blocklist', { name: 'Competitors', data: { output: i % 3 === 0 || jump ? 'Try Acme.' : 'Fine.' }, settings: { competitors: ['Acme'] } })).status).toBe(200);
        if (i % 3 === 2) return;
        const annotate = (body: object) => t.request('POST', `/api/annotations/trace/${id}`, { authToken: key, body: { comment: 'c', ...body } });
        const scores = [
          { configId: configs.quality, value: 1 + ((i + k) % 5) - (jump ? 1 : 0) },
          { configId: configs.correct, value: (i + k) % 3 !== 0 },
          { configId: configs.tone, value: ['friendly', 'neutral', 'rude'][(i + k + 3) % 3] },
        ];
        const first = await annotate({ isThumbsUp: (i + k) % 4 !== 0, scores });
        expect(first.status, JSON.stringify(first.body)).toBe(200);
        // A second reviewer on some traces: one trace, two scores, one mean in the rank test.
        if (i % 4 === 1) expect((await annotate({ isThumbsUp: false, scores: [{ configId: configs.quality, value: 5 }] })).status).toBe(200);
      }),
    );
  }

  it('measures every metric kind the same whether its windows are read in bulk or one by one', async () => {
    for (const [name, body] of [
      ['quality', { name: 'Quality', kind: 'numeric', min: 0, max: 5 }],
      ['correct', { name: 'Correct', kind: 'boolean' }],
      ['tone', { name: 'Tone', kind: 'categorical', categories: ['friendly', 'neutral', 'rude'] }],
    ] as const) {
      const res = await t.request('POST', '/api/score-configs', { authToken: key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      configs[name] = res.body.data.id;
    }
    // The window before T0 (every rule's first baseline), T0's six, and a week before them.
    for (let k = -1; k < WINDOWS; k++) await windowTraffic(T0, k, true);
    for (let k = 0; k < WINDOWS; k++) await windowTraffic(T0 - WEEK, k, false);

    const metricOf: Record<string, object> = {
      evaluator_pass_rate: { kind: 'evaluator_pass_rate', evaluator: 'llm/competitor_blocklist' },
      evaluator_score_mean: { kind: 'evaluator_score_mean', evaluator: 'example/word_count' },
      evaluator_error_rate: { kind: 'evaluator_error_rate', evaluator: 'example/word_count' },
      score_mean: { kind: 'score_mean', configId: configs.quality },
      category_share: { kind: 'category_share', configId: configs.tone, category: 'rude' },
    };
    const change = (baseline: object = { kind: 'previous' }) => ({ kind: 'change', baseline, alpha: 0.05 });
    const bodies: object[] = [
      ...TRACE_METRIC_KINDS.map((m) => ({ name: m, metric: metricOf[m] ?? { kind: m }, condition: change() })),
      { name: 'boolean score', metric: { kind: 'score_mean', configId: configs.correct }, condition: change() },
      { name: 'errors by model', metric: { kind: 'error_rate' }, splitBy: 'model', condition: change() },
      { name: 'latency by model', metric: { kind: 'latency_p95' }, splitBy: 'model', condition: change() },
      { name: 'cost by model', metric: { kind: 'cost_per_trace' }, splitBy: 'model', condition: change() },
      { name: 'pass rates by evaluator', metric: { kind: 'evaluator_pass_rate' }, splitBy: 'evaluator', condition: change() },
      { name: 'traffic vs a week ago', metric: { kind: 'trace_count' }, condition: change({ kind: 'week' }) },
      { name: 'latency vs a week ago', metric: { kind: 'latency_p50' }, splitBy: 'model', condition: change({ kind: 'week' }) },
      { name: 'errors vs a reference', metric: { kind: 'error_rate' }, condition: change({ kind: 'reference', start: T0 - WEEK, end: T0 - WEEK + 3 * W }) },
      { name: 'latency threshold', metric: { kind: 'latency_p99' }, condition: { kind: 'threshold', operator: 'above', value: 800 } },
      { name: 'tokens threshold', metric: { kind: 'tokens_total' }, splitBy: 'model', condition: { kind: 'threshold', operator: 'above', value: 1000 } },
    ].map((b) => ({ windowMinutes: 5, filters: { labels: ['bulk'] }, ...b }));

    clock.set(T0 + 30_000);
    const ids: string[] = [];
    for (const body of bodies) {
      const res = await t.request('POST', '/api/alerts/rules', { token: key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(res.body.id);
    }
    clock.set(T0 + WINDOWS * W + 1_000);
    await t.app.services.alerts.alerts.evaluateDue();

    let decided = 0;
    const kindsSeen = new Set<string>();
    for (const [i, body] of bodies.entries()) {
      const label = (body as { name: string }).name;
      const history = (await t.request('GET', `/api/alerts/rules/${ids[i]}/history?limit=1000`, { token: key })).body.data as Record<string, unknown>[];
      const preview = await t.request('POST', '/api/alerts/rules/preview', { token: key, body });
      expect(preview.status, JSON.stringify(preview.body)).toBe(200);
      const windows = preview.body.windows as (Record<string, unknown> & { segments: number; breaches: number })[];
      for (let k = 0; k < WINDOWS; k++) {
        const start = T0 + k * W;
        const byScheduler = history.filter((e) => e.windowStart === start);
        const row = windows.find((w) => w.windowStart === start)!;
        expect(row, `${label}: window ${k} in the preview`).toBeDefined();
        // The preview's row is the window's segment nearest to firing; the scheduler kept every segment.
        expect(row.segments, `${label}: segments of window ${k}`).toBe(byScheduler.length);
        expect(row.breaches, `${label}: breaches of window ${k}`).toBe(byScheduler.filter((e) => e.decision === 'breach').length);
        const same = byScheduler.find((e) => e.segment === row.segment);
        expect(same, `${label}: window ${k} segment ${String(row.segment)}`).toBeDefined();
        expect(pick(row), `${label}: window ${k}`).toEqual(pick(same!));
        if (row.decision !== 'too_few') decided++;
      }
      // Every kind measured something in these windows (not six empty windows compared).
      if (history.some((e) => e.count !== 0 && e.value !== null)) kindsSeen.add(label);
    }
    expect(TRACE_METRIC_KINDS.filter((m) => !kindsSeen.has(m))).toEqual([]);
    expect(decided).toBeGreaterThan(bodies.length * 3);
  }, 300_000);
});

// Thread metrics read thread monitors' results, which this project has none of:
// test/review/thread-review.test.ts previews them against results it knows.
const TRACE_METRIC_KINDS = METRIC_KINDS.filter((m) => !m.startsWith('thread_'));

const pick = (e: Record<string, unknown>) => Object.fromEntries(MEASURED.map((k) => [k, e[k]]));
