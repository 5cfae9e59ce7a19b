import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, toolCallReply, type FakeServer } from '../evaluators/fake-servers.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { databaseKinds, startApp, type TestApp, JOBS_RUN_BY_HAND } from '../support/harness.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const HOUR = 3_600_000;

/** Monitors whose evaluator gives a score or a label and no pass/fail: their stats are scores and labels, not a pass rate. */
describe.each(databaseKinds)('monitor stats of scores and labels (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  const clock = new ManualClock(new Date(T0));
  let scoreMonitor: string;
  let labelMonitor: string;
  // The judge's answers, by the trace it is asked about (its output text).
  const SCORES: Record<string, number> = { 'answer one': 1, 'answer two': 2, 'answer three': 3, 'answer four': 4, 'answer nine': 9 };
  const LABELS: Record<string, string> = { 'answer one': 'billing', 'answer two': 'billing', 'answer three': 'shipping', 'answer four': 'billing', 'answer nine': 'other' };

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (req) => {
      const text = JSON.stringify(req.body);
      const about = Object.keys(SCORES).find((k) => text.includes(k)) ?? 'answer one';
      return text.includes('"label"') ? toolCallReply('evaluation', { reasoning: 'r', label: LABELS[about] }) : toolCallReply('evaluation', { reasoning: 'r', final_score: SCORES[about] });
    };
    t = await startApp(kind, { clock, env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${fake.url}/v1`, ...JOBS_RUN_BY_HAND } });
    const key = t.creds.projectApiKey;
    const monitor = async (body: unknown) => {
      const res = await t.request('POST', '/api/monitors', { authToken: key, body });
      expect(res.status, res.text).toBe(200);
      return res.body.id as string;
    };
    scoreMonitor = await monitor({ name: 'Helpfulness', evaluator: 'llm/llm_score', settings: { model: 'openai/gpt-4o-mini' } });
    labelMonitor = await monitor({
      name: 'Topic',
      evaluator: 'llm/llm_category',
      settings: { model: 'openai/gpt-4o-mini', categories: [{ name: 'billing', description: 'money' }, { name: 'shipping', description: 'parcels' }, { name: 'other', description: 'anything else' }] },
    });
    const trace = (id: string, text: string) =>
      t.request('POST', '/api/collector', {
        authToken: key,
        body: { trace_id: id, spans: [{ span_id: `${id}-1`, type: 'llm', input: { type: 'text', value: 'Where is my parcel?' }, output: { type: 'text', value: text }, timestamps: { started_at: clock.now().getTime() - 1000, finished_at: clock.now().getTime() - 900 } }] },
      });
    const run = async () => {
      clock.advance(31_000);
      await t.app.services.jobs.runDue();
    };
    // First hour: scores 1, 2, 3; two hours later: 4 and 9.
    for (const [id, text] of [['s-1', 'answer one'], ['s-2', 'answer two'], ['s-3', 'answer three']]) expect((await trace(id, text)).status).toBe(200);
    await run();
    clock.advance(2 * HOUR);
    for (const [id, text] of [['s-4', 'answer four'], ['s-9', 'answer nine']]) expect((await trace(id, text)).status).toBe(200);
    await run();
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const stats = (id: string) => t.request('GET', `/api/monitors/${id}/stats?startDate=${T0}&endDate=${T0 + 3 * HOUR - 1}&interval=hour`, { authToken: t.creds.projectApiKey });

  it('a score evaluator: the mean, median and 90th percentile of its scores, overall and per interval', async () => {
    const res = await stats(scoreMonitor);
    expect(res.status, res.text).toBe(200);
    expect(res.body.overall.score).toEqual({ count: 5, mean: 19 / 5, min: 1, p50: 3, p90: expect.closeTo(7, 6), max: 9 });
    // Whole-number scores 1 to 9: one bin per value, the empty ones counted 0.
    expect(res.body.overall.distribution).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((v) => ({ from: v, to: v, count: [1, 2, 3, 4, 9].includes(v) ? 1 : 0 })));
    expect(res.body.buckets.map((b: { score: unknown }) => b.score)).toEqual([
      { count: 3, mean: 2, min: 1, p50: 2, p90: expect.closeTo(2.8, 6), max: 3 },
      null,
      { count: 2, mean: 6.5, min: 4, p50: 6.5, p90: expect.closeTo(8.5, 6), max: 9 },
    ]);
    // No verdicts: no pass rate, and no labels.
    expect(res.body.buckets.every((b: { pass_rate: unknown; labels: unknown[] }) => b.pass_rate === null && b.labels.length === 0)).toBe(true);
  });

  it('a categorical evaluator: results per label, overall and per interval', async () => {
    const res = await stats(labelMonitor);
    expect(res.status, res.text).toBe(200);
    expect(res.body.overall).toEqual({ score: null, distribution: [], labels: [{ label: 'billing', count: 3 }, { label: 'other', count: 1 }, { label: 'shipping', count: 1 }] });
    expect(res.body.buckets.map((b: { labels: unknown }) => b.labels)).toEqual([
      [{ label: 'billing', count: 2 }, { label: 'shipping', count: 1 }],
      [],
      [{ label: 'billing', count: 1 }, { label: 'other', count: 1 }],
    ]);
  });
});
