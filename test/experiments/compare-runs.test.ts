import { describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');

interface FixtureRow {
  index: number;
  target?: string;
  cost?: number | null;
  duration?: number | null;
  error?: string | null;
  evals?: Record<string, { score?: number | null; passed?: boolean | null; label?: string; status?: string; duration?: number; cost?: number }>;
}

describe.each(databaseKinds)('reading and comparing runs (%s)', (kind) => {
  let p: ProjectApp;
  useProjectApp(kind, (app) => (p = app));
  const get = (url: string, token = p.key) => p.t.request('GET', url, { authToken: token });

  /** Logs a finished run through log_results, as an SDK does. */
  async function logRun(slug: string, runId: string, rows: FixtureRow[], createdAt = T0) {
    const body = {
      experiment_slug: slug,
      run_id: runId,
      targets: [...new Set(rows.map((r) => r.target).filter(Boolean))].map((id) => ({ id, name: `Target ${id}` })),
      dataset: rows.map((r) => ({
        index: r.index,
        target_id: r.target ?? null,
        entry: { question: `q${r.index}` },
        predicted: { output: `${runId}-a${r.index}` },
        cost: r.cost ?? null,
        duration: r.duration ?? null,
        error: r.error ?? null,
      })),
      evaluations: rows.flatMap((r) =>
        Object.entries(r.evals ?? {}).map(([evaluator, e]) => ({
          evaluator,
          name: evaluator.toUpperCase(),
          index: r.index,
          target_id: r.target ?? null,
          status: e.status ?? 'processed',
          score: e.score ?? null,
          passed: e.passed ?? null,
          label: e.label ?? null,
          duration: e.duration ?? null,
          cost: e.cost ?? null,
        })),
      ),
      timestamps: { created_at: createdAt, finished_at: createdAt + 60_000 },
    };
    const res = await p.t.request('POST', '/api/evaluations/batch/log_results', { authToken: p.key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  const range = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('summary: per evaluator and per target, mean score, pass rate, latency p50/p95 and total cost with 95% intervals, the same on every read', async () => {
    // 100 rows on target a: duration 1..100 ms, cost 0.01 each; 8 of the first 10 pass "exact".
    await logRun(
      'summary',
      'run-1',
      range(100).map((i): FixtureRow => ({
        index: i,
        target: 'a',
        duration: i + 1,
        cost: 0.01,
        error: i === 99 ? 'boom' : null,
        evals: {
          exact: i < 10 ? { score: i < 8 ? 1 : 0, passed: i < 8 } : { status: 'skipped' },
          tone: { score: (i % 10) / 10, label: i % 2 ? 'polite' : 'rude', duration: 10, cost: 0.001 },
        },
      })).concat(range(10).map((i) => ({ index: i, target: 'b', duration: 5, cost: 0.02, evals: { exact: { score: 0, passed: false } } }))),
    );
    const res = await get('/api/experiments/summary/runs/run-1/summary');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const s = res.body;
    expect(s).toMatchObject({ experimentSlug: 'summary', runId: 'run-1', status: 'completed', isBaseline: false, methods: { confidence: 0.95, resamples: 1000, rate: 'Wilson score interval' } });
    expect(s.targets.map((t: { targetId: string; name: string }) => [t.targetId, t.name])).toEqual([['a', 'Target a'], ['b', 'Target b']]);
    const a = s.targets[0];
    expect(a).toMatchObject({ rows: 100, errors: 1 });
    expect(a.errorRate).toMatchObject({ value: 0.01, n: 100 });
    // Order-statistic intervals on 1..100: p50 = 50.5 within [40, 60]; p95 = 95.05.
    expect(a.latency.p50).toEqual({ value: 50.5, low: 40, high: 60, n: 100 });
    expect(a.latency.p95.value).toBeCloseTo(95.05, 6);
    expect(a.latency.p95.low).toBeLessThanOrEqual(95.05);
    expect(a.latency.p95.high).toBeGreaterThanOrEqual(95.05);
    // Every row costs the same: the bootstrap interval of the total is the total.
    expect(a.cost.value).toBeCloseTo(1, 9);
    expect(a.cost.low).toBeCloseTo(1, 9);
    expect(a.cost.high).toBeCloseTo(1, 9);
    const exact = a.evaluators.find((e: { evaluator: string }) => e.evaluator === 'exact');
    expect(exact).toMatchObject({ name: 'EXACT', results: 100, processed: 10, skipped: 90, passed: 8, failed: 2 });
    // Wilson for 8 of 10: [0.4902, 0.9433].
    expect(exact.passRate.value).toBeCloseTo(0.8, 9);
    expect(exact.passRate.low).toBeCloseTo(0.4902, 3);
    expect(exact.passRate.high).toBeCloseTo(0.9433, 3);
    expect(exact.score).toMatchObject({ value: 0.8, n: 10 });
    expect(exact.score.low).toBeLessThan(0.8);
    expect(exact.score.high).toBeGreaterThan(0.79);
    const tone = a.evaluators.find((e: { evaluator: string }) => e.evaluator === 'tone');
    expect(tone.score.value).toBeCloseTo(0.45, 9);
    expect(tone.score.low).toBeGreaterThan(0.35);
    expect(tone.score.high).toBeLessThan(0.55);
    expect(tone.passRate).toBeNull();
    expect(tone.latency.p50).toMatchObject({ value: 10, low: 10, high: 10 });
    expect(tone.cost.value).toBeCloseTo(0.1, 9);
    // Overall: both targets; exact passes 8 of 20.
    expect(s.overall).toMatchObject({ targetId: null, rows: 110, errors: 1 });
    expect(s.overall.cost.value).toBeCloseTo(1.2, 9);
    expect(s.overall.evaluators.find((e: { evaluator: string }) => e.evaluator === 'exact').passRate).toMatchObject({ value: 0.4, n: 20 });
    expect((await get('/api/experiments/summary/runs/run-1/summary')).body).toEqual(s);

    expect((await get('/api/experiments/summary/runs/nope/summary')).body.error.code).toBe('run_not_found');
    expect((await get('/api/experiments/never/runs/run-1/summary')).body.error.code).toBe('experiment_not_found');
    expect((await get('/api/experiments/summary/runs/run-1/summary', p.other.projectToken)).status).toBe(404);
  });

  it('rows: filtered and sorted server-side by any column, paged, each with its evaluations', async () => {
    const rows = (q: string) => get(`/api/experiments/summary/runs/run-1/rows?${q}`);
    const all = await rows('pageSize=5');
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.pagination).toEqual({ page: 1, pageSize: 5, totalHits: 110, hasMore: true });
    // An SDK-logged run pins no evaluator version (a platform run of a custom evaluator does).
    expect(all.body.evaluators).toEqual([
      { evaluator: 'exact', name: 'EXACT', version: null },
      { evaluator: 'tone', name: 'TONE', version: null },
    ]);
    expect(all.body.rows[0]).toMatchObject({ index: 0, targetId: 'a', entry: { question: 'q0' }, duration: 1, evaluations: { exact: { score: 1, passed: true, status: 'processed' } } });
    const failed = await rows(`where=${encodeURIComponent('passed:exact=false')}&sortBy=index&sortDirection=desc`);
    expect(failed.body.rows.map((r: { index: number; targetId: string }) => `${r.targetId}${r.index}`)).toEqual(['a9', 'b9', 'a8', 'b8', 'b7', 'b6', 'b5', 'b4', 'b3', 'b2', 'b1', 'b0']);
    const slowest = await rows('sortBy=duration&sortDirection=desc&pageSize=2');
    expect(slowest.body.rows.map((r: { duration: number }) => r.duration)).toEqual([100, 99]);
    const byScore = await rows(`where=${encodeURIComponent('score:tone>=0.9')}&where=targetId=a&sortBy=${encodeURIComponent('score:tone')}&pageSize=200`);
    expect(byScore.body.pagination.totalHits).toBe(10);
    const errored = await rows(`where=${encodeURIComponent('error!=null')}`);
    expect(errored.body.rows.map((r: { index: number }) => r.index)).toEqual([99]);
    const contains = await rows(`where=${encodeURIComponent('error~BO')}`);
    expect(contains.body.pagination.totalHits).toBe(1);
    const label = await rows(`where=${encodeURIComponent('label:tone=polite')}&where=${encodeURIComponent('cost<0.015')}&where=${encodeURIComponent('latency>90')}`);
    expect(label.body.rows.map((r: { index: number }) => r.index)).toEqual([91, 93, 95, 97, 99]);
    const page2 = await rows('pageSize=50&page=3');
    expect(page2.body.rows).toHaveLength(10);
    expect(page2.body.pagination).toEqual({ page: 3, pageSize: 50, totalHits: 110, hasMore: false });
    for (const [q, field] of [
      ['where=nope=1', 'querystring.where'],
      ['where=cost=cheap', 'querystring.where'],
      [`where=${encodeURIComponent('passed:exact>1')}`, 'querystring.where'],
      ['where=justtext', 'querystring.where'],
      ['sortBy=banana', 'querystring.sortBy'],
      ['sortDirection=up', 'querystring.sortDirection'],
    ]) {
      const bad = await rows(q);
      expect(bad.status, q).toBe(400);
      expect(bad.body.error.meta.field, q).toBe(field);
    }
  });

  it('compare: identical runs differ by 0 with no detectable difference; clearly shifted runs are better or worse; seeded intervals', async () => {
    const base = range(200).map((i) => ({ index: i, duration: 100, cost: 0.01, evals: { exact: { score: (i % 10) / 10, passed: i < 60 } } }));
    await logRun('cmp', 'base', base, T0);
    await logRun('cmp', 'same', base, T0 + 1000);
    await logRun('cmp', 'shifted', range(200).map((i) => ({ index: i, duration: 100, cost: 0.01, evals: { exact: { score: (i % 10) / 10 + 0.2, passed: i < 180 } } })), T0 + 2000);
    // Five results flip each way: the pass rate is unchanged, the flips are listed.
    await logRun('cmp', 'noisy', range(200).map((i) => ({ index: i, evals: { exact: { score: (i % 10) / 10, passed: i < 5 ? false : i >= 100 && i < 105 ? true : i < 60 } } })), T0 + 3000);

    const same = await get('/api/experiments/cmp/compare?runs=base,same');
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.baselineRunId).toBe('base');
    expect(same.body.runs.map((r: { runId: string }) => r.runId)).toEqual(['base', 'same']);
    const [c] = same.body.comparisons;
    expect(c).toMatchObject({ runId: 'same', baselineRunId: 'base', sharedRows: 200, correction: { method: 'holm', compared: 1 }, minimumRows: 20 });
    const unchanged = { difference: 0, low: 0, high: 0, n: 200, verdict: 'no detectable difference', pValue: 1, adjustedPValue: 1, minimumDetectableEffect: 0, notEnoughData: null, rowsNeeded: null };
    expect(c.evaluators).toEqual([
      {
        evaluator: 'exact',
        name: 'EXACT',
        higherIsBetter: true,
        decidedBy: 'passRate',
        verdict: 'no detectable difference',
        score: { baseline: expect.closeTo(0.45, 9), current: expect.closeTo(0.45, 9), ...unchanged },
        passRate: { baseline: 0.3, current: 0.3, ...unchanged },
        regressions: 0,
        improvements: 0,
        repetitions: null,
      },
    ]);

    const up = await get('/api/experiments/cmp/compare?runs=base,shifted');
    const upEval = up.body.comparisons[0].evaluators[0];
    expect(upEval.verdict).toBe('better');
    expect(upEval.passRate).toMatchObject({ baseline: 0.3, current: 0.9, verdict: 'better' });
    expect(upEval.passRate.difference).toBeCloseTo(0.6, 9);
    expect(upEval.passRate.low).toBeGreaterThan(0.5);
    expect(upEval.passRate.high).toBeLessThan(0.7);
    expect(upEval.score.difference).toBeCloseTo(0.2, 9);
    expect(upEval.score.low).toBeCloseTo(0.2, 9);
    // Every row's score moved by exactly 0.2: no spread to measure, so the score says "not enough data".
    expect(upEval.score).toMatchObject({ verdict: 'not enough data', notEnoughData: 'no spread', minimumDetectableEffect: null });
    expect(upEval.improvements).toBe(120);
    // Same runs, same interval.
    expect((await get('/api/experiments/cmp/compare?runs=base,shifted')).body).toEqual(up.body);

    const down = await get('/api/experiments/cmp/compare?runs=shifted,base');
    expect(down.body.comparisons[0].evaluators[0]).toMatchObject({ verdict: 'worse', regressions: 120, improvements: 0, passRate: { verdict: 'worse' } });
    // Lower is better for this evaluator: the same shift is now worse.
    const lower = await get('/api/experiments/cmp/compare?runs=base,shifted&lowerIsBetter=exact');
    expect(lower.body.comparisons[0].evaluators[0]).toMatchObject({ higherIsBetter: false, verdict: 'worse' });

    const noisy = await get('/api/experiments/cmp/compare?runs=base,noisy,shifted');
    expect(noisy.body.comparisons.map((x: { runId: string }) => x.runId)).toEqual(['noisy', 'shifted']);
    const n = noisy.body.comparisons[0].evaluators[0];
    expect(n).toMatchObject({ verdict: 'no detectable difference', regressions: 5, improvements: 5, passRate: { difference: 0 } });
    expect(n.passRate.low).toBeLessThan(0);
    expect(n.passRate.high).toBeGreaterThan(0);

    // The regressions view: passed in the baseline and fail now, and the reverse.
    const flips = await get('/api/experiments/cmp/compare/regressions?runs=base,noisy');
    expect(flips.status, JSON.stringify(flips.body)).toBe(200);
    expect(flips.body).toMatchObject({ baselineRunId: 'base', runId: 'noisy', counts: { regressed: 5, improved: 5 }, evaluators: [{ evaluator: 'exact', regressed: 5, improved: 5 }] });
    expect(flips.body.rows.map((r: { index: number; direction: string }) => `${r.direction}:${r.index}`)).toEqual([
      ...range(5).map((i) => `regressed:${i}`),
      ...range(5).map((i) => `improved:${100 + i}`),
    ]);
    expect(flips.body.rows[0]).toMatchObject({ evaluator: 'exact', entry: { question: 'q0' }, baseline: { passed: true, predicted: { output: 'base-a0' } }, current: { passed: false, predicted: { output: 'noisy-a0' } } });
    const improved = await get('/api/experiments/cmp/compare/regressions?runs=base,noisy&direction=improved&pageSize=2');
    expect(improved.body.rows.map((r: { index: number }) => r.index)).toEqual([100, 101]);
    expect(improved.body.pagination).toEqual({ page: 1, pageSize: 2, totalHits: 5, hasMore: true });

    // Side by side, joined by index (and target).
    const side = await get('/api/experiments/cmp/compare/rows?runs=base,noisy&pageSize=3');
    expect(side.status, JSON.stringify(side.body)).toBe(200);
    expect(side.body.runIds).toEqual(['base', 'noisy']);
    expect(side.body.pagination.totalHits).toBe(200);
    expect(side.body.rows[0]).toMatchObject({
      index: 0,
      targetId: null,
      entry: { question: 'q0' },
      cells: [
        { runId: 'base', predicted: { output: 'base-a0' }, evaluations: { exact: { passed: true } } },
        { runId: 'noisy', predicted: { output: 'noisy-a0' }, evaluations: { exact: { passed: false } } },
      ],
    });
  });

  it('a run written again after it was read: its summary, comparisons and regressions read the new results', async () => {
    const passing = range(50).map((i) => ({ index: i, duration: 10, evals: { exact: { score: 1, passed: true } } }));
    await logRun('rewritten', 'base', passing, T0);
    await logRun('rewritten', 'next', passing, T0 + 1000);
    const before = await get('/api/experiments/rewritten/compare?runs=base,next');
    expect(before.body.comparisons[0]).toMatchObject({ sharedRows: 50, evaluators: [{ regressions: 0, passRate: { current: 1 } }] });
    expect((await get('/api/experiments/rewritten/runs/next/summary')).body.overall).toMatchObject({ rows: 50 });
    expect((await get('/api/experiments/rewritten/compare/regressions?runs=base,next')).body.counts).toEqual({ regressed: 0, improved: 0 });

    // The SDK posts again: ten rows now fail, and a row is added.
    await logRun('rewritten', 'next', range(10).map((i) => ({ index: i, duration: 10, evals: { exact: { score: 0, passed: false } } })).concat([{ index: 50, duration: 10, evals: { exact: { score: 1, passed: true } } }]), T0 + 1000);
    const after = await get('/api/experiments/rewritten/compare?runs=base,next');
    expect(after.body.comparisons[0]).toMatchObject({ sharedRows: 50, evaluators: [{ regressions: 10, passRate: { current: 0.8, n: 50 } }] });
    expect(after.body.runs[1].overall).toMatchObject({ rows: 51, evaluators: [{ passed: 41, failed: 10 }] });
    expect((await get('/api/experiments/rewritten/runs/next/summary')).body.overall).toMatchObject({ rows: 51, evaluators: [{ passed: 41, failed: 10 }] });
    const flips = await get('/api/experiments/rewritten/compare/regressions?runs=base,next');
    expect(flips.body.counts).toEqual({ regressed: 10, improved: 0 });
    expect(flips.body.rows.map((r: { index: number }) => r.index)).toEqual(range(10));
  });

  it('several targets: pairs are made per target and index, and regressions list them in (index, target) order', async () => {
    const rowsOf = (failing: (i: number, t: string) => boolean) =>
      ['b', 'a'].flatMap((t) => range(4).map((i) => ({ index: i, target: t, evals: { exact: { score: failing(i, t) ? 0 : 1, passed: !failing(i, t) } } })));
    await logRun('targets', 'base', rowsOf(() => false), T0);
    await logRun('targets', 'next', rowsOf((i, t) => (t === 'a' && i < 2) || (t === 'b' && i === 1)), T0 + 1000);
    const res = await get('/api/experiments/targets/compare?runs=base,next');
    expect(res.body.comparisons[0]).toMatchObject({ sharedRows: 8, evaluators: [{ regressions: 3, passRate: { n: 8, baseline: 1, current: 5 / 8 } }] });
    const flips = await get('/api/experiments/targets/compare/regressions?runs=base,next');
    expect(flips.body.rows.map((r: { index: number; targetId: string }) => `${r.index}${r.targetId}`)).toEqual(['0a', '1a', '1b']);
  });

  it('thin data: one paired row or a constant shift is "not enough data" with the rows needed; the same 0/1 results give the same interval under any evaluator', async () => {
    await logRun('thin', 'a', [{ index: 0, evals: { exact: { passed: true } } }]);
    await logRun('thin', 'b', [{ index: 0, evals: { exact: { passed: false } } }]);
    const one = (await get('/api/experiments/thin/compare?runs=a,b')).body.comparisons[0];
    expect(one.evaluators[0]).toMatchObject({ verdict: 'not enough data', passRate: { n: 1, verdict: 'not enough data', notEnoughData: 'too few rows', rowsNeeded: 20, minimumDetectableEffect: null } });
    expect(one.correction).toEqual({ method: 'holm', compared: 0 });

    // Every row scores 0.2 in one run and 0.8 in the other: a zero-width interval would say "better" with no evidence of spread.
    await logRun('flat', 'a', range(30).map((i) => ({ index: i, evals: { judge: { score: 0.2 } } })));
    await logRun('flat', 'b', range(30).map((i) => ({ index: i, evals: { judge: { score: 0.8 } } })));
    const flat = (await get('/api/experiments/flat/compare?runs=a,b')).body.comparisons[0].evaluators[0];
    expect(flat).toMatchObject({ decidedBy: 'score', verdict: 'not enough data', score: { n: 30, notEnoughData: 'no spread', rowsNeeded: null } });

    // Two evaluators with the same pass/fail results: one seed per comparison, so one interval.
    const results = (run: string) => range(60).map((i) => {
      const passed = run === 'a' ? i % 3 === 0 : i % 2 === 0;
      return { index: i, evals: { first: { passed }, second: { passed } } };
    });
    await logRun('seed', 'a', results('a'));
    await logRun('seed', 'b', results('b'));
    const seeded = (await get('/api/experiments/seed/compare?runs=a,b&effect=0.1')).body.comparisons[0];
    const [first, second] = seeded.evaluators;
    expect([first.passRate.low, first.passRate.high]).toEqual([second.passRate.low, second.passRate.high]);
    expect(first.passRate.pValue).toBe(second.passRate.pValue);
    // n needed to find a 0.1 difference: ((1.96 + 0.84) sd / 0.1)^2 from the pairs' own spread.
    const diffs = range(60).map((i) => Number(i % 2 === 0) - Number(i % 3 === 0));
    const m = diffs.reduce((x, y) => x + y, 0) / 60;
    const sd = Math.sqrt(diffs.reduce((x, d) => x + (d - m) ** 2, 0) / 59);
    expect(first.passRate.rowsNeeded).toBe(Math.ceil(((2.8015852181 * sd) / 0.1) ** 2));
    expect(first.passRate.minimumDetectableEffect).toBeCloseTo((2.8015852181 * sd) / Math.sqrt(60), 6);

    for (const effect of ['0', '-1', 'abc']) {
      const bad = await get(`/api/experiments/seed/compare?runs=a,b&effect=${effect}`);
      expect(bad.status, effect).toBe(400);
      expect(bad.body.error.meta.field).toBe('querystring.effect');
    }
  });

  it('several evaluators: verdicts are Holm-corrected, so a difference that is "better" alone is not when compared with two others', async () => {
    // 2,500 rows, past the bootstrap's limit, so the normal interval and p-value are exact and no resampling luck decides the
    // test: "edge" has 115 rows that now pass and 84 that now fail (z 2.20, p 0.028); the others only trade places (p 1).
    const edge = (run: string, i: number) => (run === 'a' ? i < 1_250 : (i < 1_250 && i >= 84) || (i >= 1_250 && i < 1_365));
    const swap = (run: string, i: number) => (run === 'a' ? i < 1_250 : i >= 100 && i < 1_350);
    const rowsOf = (run: string, evaluators: string[]) =>
      range(2_500).map((i) => ({ index: i, evals: Object.fromEntries(evaluators.map((ev) => [ev, { passed: ev === 'edge' ? edge(run, i) : swap(run, i) }])) }));
    await logRun('alone', 'a', rowsOf('a', ['edge']));
    await logRun('alone', 'b', rowsOf('b', ['edge']));
    await logRun('holm', 'a', rowsOf('a', ['edge', 'other', 'third']));
    await logRun('holm', 'b', rowsOf('b', ['edge', 'other', 'third']));
    const alone = (await get('/api/experiments/alone/compare?runs=a,b')).body.comparisons[0];
    expect(alone.correction).toEqual({ method: 'holm', compared: 1 });
    const solo = alone.evaluators[0].passRate;
    expect(solo.verdict).toBe('better');
    expect(solo.pValue).toBeLessThan(0.05);
    expect(solo.pValue).toBeGreaterThan(0.05 / 3);
    expect(solo.low).toBeGreaterThan(0);

    const holm = (await get('/api/experiments/holm/compare?runs=a,b')).body.comparisons[0];
    expect(holm.correction).toEqual({ method: 'holm', compared: 3 });
    const corrected = holm.evaluators.find((e: { evaluator: string }) => e.evaluator === 'edge');
    // Its own interval excludes 0 and its raw p-value is under 5 %; the verdict reads the corrected one (the smallest of three p-values, times 3).
    expect(corrected.passRate.low).toBeGreaterThan(0);
    expect(corrected.passRate.pValue).toBeLessThan(0.05);
    expect(corrected.passRate.verdict).toBe('no detectable difference');
    expect(corrected.passRate.adjustedPValue).toBeCloseTo(Math.min(1, corrected.passRate.pValue * 3), 9);
    expect(corrected.verdict).toBe('no detectable difference');
  });

  it('past 2,000 shared rows the difference of mean scores has the normal interval (mean ± 1.96 standard errors)', async () => {
    const N = 2_500;
    // Differences cycle through 0, 0.1, ..., 0.4: a mean of 0.2 and a known spread.
    const scoreOf = (i: number, shift: boolean) => (i % 7) / 10 + (shift ? (i % 5) / 10 : 0);
    await logRun('large', 'base', range(N).map((i) => ({ index: i, evals: { judge: { score: scoreOf(i, false), passed: true } } })));
    await logRun('large', 'next', range(N).map((i) => ({ index: i, evals: { judge: { score: scoreOf(i, true), passed: true } } })));
    const res = await get('/api/experiments/large/compare?runs=base,next');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const diffs = range(N).map((i) => scoreOf(i, true) - scoreOf(i, false));
    const m = diffs.reduce((a, b) => a + b, 0) / N;
    const se = Math.sqrt(diffs.reduce((a, d) => a + (d - m) ** 2, 0) / (N - 1) / N);
    const score = res.body.comparisons[0].evaluators[0].score;
    expect(score).toMatchObject({ n: N, verdict: 'better' });
    expect(score.difference).toBeCloseTo(m, 9);
    expect(score.low).toBeCloseTo(m - 1.959963984540054 * se, 9);
    expect(score.high).toBeCloseTo(m + 1.959963984540054 * se, 9);
    expect(res.body.methods.difference).toMatch(/past 2,000 pairs the normal interval/);
  });

  it('baseline: marked by route and stored; comparisons default to it; bad input answers 4xx naming the field', async () => {
    expect((await get('/api/experiments/cmp/baseline')).body).toEqual({ experimentSlug: 'cmp', baselineRunId: null });
    const put = (body: unknown, token = p.key) => p.t.request('PUT', '/api/experiments/cmp/baseline', { authToken: token, body });
    const marked = await put({ runId: 'shifted' });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    expect(marked.body).toEqual({ experimentSlug: 'cmp', baselineRunId: 'shifted' });
    expect((await get('/api/experiments/cmp/baseline')).body.baselineRunId).toBe('shifted');
    expect((await get('/api/experiments/cmp/runs/shifted/summary')).body.isBaseline).toBe(true);
    // One run named: compared with the stored baseline.
    const vs = await get('/api/experiments/cmp/compare?runs=base');
    expect(vs.status, JSON.stringify(vs.body)).toBe(200);
    expect(vs.body).toMatchObject({ baselineRunId: 'shifted', experimentBaselineRunId: 'shifted' });
    expect(vs.body.comparisons[0]).toMatchObject({ runId: 'base', evaluators: [{ verdict: 'worse' }] });
    // An explicit baseline wins over the stored one.
    expect((await get('/api/experiments/cmp/compare?runs=shifted&baseline=base')).body.comparisons[0].evaluators[0].verdict).toBe('better');
    expect((await get('/api/experiments/cmp/compare/regressions?runs=base')).body).toMatchObject({ baselineRunId: 'shifted', counts: { regressed: 120 } });

    const unknown = await put({ runId: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('run_not_found');
    const bad = await put({ runId: 5 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.meta.field).toBe('body.runId');
    expect((await put({ runId: 'base' }, p.other.projectToken)).status).toBe(404);
    expect((await put({ runId: null })).body.baselineRunId).toBeNull();
    const one = await get('/api/experiments/cmp/compare?runs=base');
    expect(one.status).toBe(400);
    expect(one.body.error.meta.field).toBe('querystring.runs');
    const missing = await get('/api/experiments/cmp/compare?runs=base,nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('run_not_found');
    expect((await get('/api/experiments/cmp/compare')).body.error.meta.field).toBe('querystring.runs');
    expect((await get('/api/experiments/cmp/compare?runs=base,,same')).body.error.meta.field).toBe('querystring.runs');
    expect((await get('/api/experiments/cmp/compare?runs=base,same', p.other.projectToken)).status).toBe(404);
    expect((await get('/api/experiments/cmp/compare/rows?runs=base,same', p.other.projectToken)).status).toBe(404);
    expect((await get('/api/experiments/cmp/compare/regressions?runs=base,same', p.other.projectToken)).status).toBe(404);
    expect((await get('/api/experiments/summary/runs/run-1/rows', p.other.projectToken)).status).toBe(404);
    expect((await get('/api/experiments/cmp/baseline', p.other.projectToken)).status).toBe(404);
  });
});
