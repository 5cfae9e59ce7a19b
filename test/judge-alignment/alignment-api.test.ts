import { describe, expect, it } from 'vitest';
import { roganGladen } from '../../src/modules/judge-alignment/statistics.ts';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
import { runCliInProcess, useTmpDirs } from '../support/server-process.ts';

const tmpDir = useTmpDirs();

/**
 * A judge against people over HTTP: people's boolean scores on 60 traces, a judge's results on
 * them and on 20 more (docs/judge-alignment.md).
 */
describe.each(databaseKinds)('judge alignment API (%s)', (kind) => {
  let p: ProjectApp;
  useProjectApp(kind, (app) => (p = app));
  const call = (method: string, url: string, body?: unknown, token = p.key) => p.t.request(method, url, { authToken: token, body });

  it('boolean: confusion, accuracy, kappa, TPR, TNR with intervals, trust by the rule, the corrected pass rate, disagreements with reasoning; bad input names the field', async () => {
    const config = async (body: object) => {
      const res = await call('POST', '/api/score-configs', body);
      expect(res.status, res.text).toBe(201);
      return res.body.data.id as string;
    };
    const correct = await config({ name: 'Correct', kind: 'boolean' });
    const tone = await config({ name: 'Tone', kind: 'categorical', categories: ['warm', 'cold'] });
    // People pass the even traces. The judge passes 24 of their 30 passes (TPR 0.8) and 10 of their 30 fails (TNR 2/3).
    const humanPass = (i: number) => i % 2 === 0;
    const judgePass = (i: number) => (humanPass(i) ? i % 10 !== 0 : i % 6 === 1);
    for (let i = 0; i < 80; i++) {
      const judged = await call('POST', '/api/evaluations/langevals/exact_match/evaluate', {
        data: { output: i >= 60 || judgePass(i) ? 'yes' : 'no', expected_output: 'yes' },
        trace_id: `tr-${i}`,
      });
      expect(judged.status, judged.text).toBe(200);
      if (i < 60) {
        const labelled = await call('POST', `/api/annotations/trace/tr-${i}`, { comment: 'checked', isThumbsUp: humanPass(i), scores: [{ configId: correct, value: humanPass(i) }] });
        expect(labelled.status, labelled.text).toBe(200);
      }
    }
    const align = (query: string, token = p.key) => call('GET', `/api/judge-alignment?evaluator=langevals/exact_match&scoreConfig=${correct}${query}`, undefined, token);
    const res = await align('');
    expect(res.status, res.text).toBe(200);
    const a = res.body;
    expect(a).toMatchObject({ evaluator: 'langevals/exact_match', version: null, n: 60, categories: ['fail', 'pass'], weighted: false, scoreConfig: { id: correct, kind: 'boolean' } });
    expect(a.confusion).toEqual([
      [20, 10],
      [6, 24],
    ]);
    expect(a.accuracy.value).toBeCloseTo(44 / 60, 12);
    // po = 44/60; the judge passes 34 of 60, people 30: pe = 0.5
    expect(a.kappa.value).toBeCloseTo((44 / 60 - 0.5) / 0.5, 12);
    expect(a.truePositiveRate.value).toBeCloseTo(0.8, 12);
    expect(a.trueNegativeRate.value).toBeCloseTo(2 / 3, 12);
    for (const e of [a.accuracy, a.kappa, a.truePositiveRate, a.trueNegativeRate]) {
      expect(e.n).toBe(60);
      expect(e.low).toBeLessThan(e.value);
      expect(e.high).toBeGreaterThan(e.value);
    }
    expect(a.trust).toMatchObject({ state: 'not trusted', rule: { statistic: 'kappa', atLeast: 0.6, minimumLabels: 50 } });
    expect(a.trust.reason).toMatch(/^kappa's 95 % lower bound is 0\.\d\d on 60 labels; the bar is 0\.6$/);
    // every judged trace counts for the pass rate: 34 of the labelled and all 20 others
    expect(a.passRate).toMatchObject({ judged: 80, passed: 54, raw: 54 / 80 });
    expect(a.passRate.corrected.value).toBeCloseTo(roganGladen(54 / 80, 0.8, 2 / 3), 12);
    expect(a.passRate.corrected.low).toBeLessThan(a.passRate.corrected.value);
    expect(a.disagreements).toHaveLength(16);
    expect(a.disagreements).toContainEqual({ traceId: 'tr-0', human: true, judge: false, reasoning: expect.stringMatching(/^Expected[\s\S]*no/) });
    expect(a.disagreements).toContainEqual(expect.objectContaining({ traceId: 'tr-1', human: false, judge: true }));
    // The same labels, the same intervals.
    expect((await align('')).body).toEqual(a);

    expect((await align('&minimumLabels=100')).body.trust).toMatchObject({ state: 'not enough labels', reason: '60 of 100 labels' });
    expect((await align('&atLeast=0.05')).body.trust.state).toBe('trusted');

    for (const [query, field] of [
      ['&minimumLabels=0', 'querystring.minimumLabels'],
      ['&atLeast=2', 'querystring.atLeast'],
      ['&version=0', 'querystring.version'],
      ['&version=3', 'querystring.version'],
    ]) {
      const bad = await align(query);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.meta.field, query).toBe(field);
    }
    const unknown = await call('GET', '/api/judge-alignment?evaluator=langevals/exact_match&scoreConfig=score_nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.meta.field).toBe('querystring.scoreConfig');
    // A pass/fail judge has no categories to set against a categorical score.
    const mismatch = await call('GET', `/api/judge-alignment?evaluator=langevals/exact_match&scoreConfig=${tone}`);
    expect(mismatch.status, mismatch.text).toBe(400);
    expect(mismatch.body.error.meta.field).toBe('querystring.evaluator');
    // Another project sees no such config.
    expect((await align('', p.other.projectToken)).body.error.meta.field).toBe('querystring.scoreConfig');

    // The CI gate: a run checked with --require-trusted fails while the judge is not trusted.
    const logged = await call('POST', '/api/evaluations/batch/log_results', {
      experiment_slug: 'gated',
      run_id: 'r1',
      dataset: [{ index: 0, entry: { q: 'q' }, predicted: { output: 'a' } }],
      evaluations: [{ evaluator: 'langevals/exact_match', index: 0, status: 'processed', passed: true, score: 1 }],
      timestamps: { created_at: Date.parse('2026-11-22T10:00:00Z'), finished_at: Date.parse('2026-11-22T10:01:00Z') },
    });
    expect(logged.status, logged.text).toBe(200);
    const cli = (args: string[]) => runCliInProcess(['experiment', 'check', 'gated', '--run', 'r1', ...args, '--server', p.t.baseUrl], { HOME: tmpDir(), SPYGLASS_API_KEY: p.key }, { timeoutMs: 120_000 });
    const untrusted = await cli(['--require-trusted', `langevals/exact_match=${correct}`]);
    expect(untrusted.code, untrusted.out).toBe(1);
    expect(untrusted.stdout).toMatch(/judge langevals\/exact_match: not trusted \(kappa's 95 % lower bound is 0\.\d\d on 60 labels; the bar is 0\.6\)/);
    expect(untrusted.stderr).toContain(`FAILED --require-trusted langevals/exact_match=${correct}: the judge is not trusted`);
    const wrong = await cli(['--require-trusted', 'no-config-here']);
    expect(wrong.code, wrong.out).toBe(2);
  }, 600_000);
});
