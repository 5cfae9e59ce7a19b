import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';

/**
 * A judge measured on experiment rows (docs/judge-alignment.md): people score a row's trace, the
 * run's evaluator judged the row; the alignment pairs them as it pairs a trace's own result. Rows
 * of a run an SDK logged (the evaluator by its own name) and of a server run (its evaluator id
 * `exact` ran langevals/exact_match). The user's agent is a loopback server.
 */
describe.each(databaseKinds)('judge alignment on experiment rows (%s)', (kind) => {
  let t: TestApp;
  let agent: http.Server;
  beforeAll(async () => {
    agent = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ output: `yes ${JSON.parse(body).question}` })));
    });
    await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
    t = await startApp(kind);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => agent.close(r));
  });
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await t.request(method, url, { authToken: t.creds.projectApiKey, ...(body === undefined ? {} : { body }) });
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };

  it("pairs people's scores of rows' traces with the judge's results on those rows; a trace's own result comes first; the judge is listed", async () => {
    const correct = (await call('POST', '/api/score-configs', { name: 'Correct', kind: 'boolean' })).data.id as string;
    const label = (traceId: string, value: boolean) => call('POST', `/api/annotations/trace/${traceId}`, { comment: '', isThumbsUp: value, scores: [{ configId: correct, value }] });

    // An SDK-logged run of 12 rows, each with its trace: the judge passes rows 0..7; people pass rows 0..5 and 10, 11.
    await call('POST', '/api/evaluations/batch/log_results', {
      experiment_slug: 'logged',
      run_id: 'r1',
      dataset: Array.from({ length: 12 }, (_, i) => ({ index: i, entry: { q: `q${i}` }, predicted: { output: 'a' }, trace_id: `row-${i}` })),
      evaluations: Array.from({ length: 12 }, (_, i) => ({ evaluator: 'langevals/exact_match', index: i, status: 'processed', passed: i < 8, score: i < 8 ? 1 : 0, details: `row ${i}` })),
      timestamps: { created_at: Date.parse('2026-11-22T10:00:00Z'), finished_at: Date.parse('2026-11-22T10:01:00Z') },
    });
    for (let i = 0; i < 12; i++) await label(`row-${i}`, i < 6 || i >= 10);
    // The judge also judged row 0's trace itself, failing it: that result is the trace's, and wins.
    await call('POST', '/api/evaluations/langevals/exact_match/evaluate', { data: { output: 'no', expected_output: 'yes' }, trace_id: 'row-0' });

    // A server run: evaluator id "exact" runs langevals/exact_match; the agent answers "yes <question>", expected "yes" only for the first two.
    await call('PUT', '/api/experiments/served/definition', {
      targets: [{ id: 'agent', type: 'http', url: `http://127.0.0.1:${(agent.address() as AddressInfo).port}/` }],
      evaluators: [{ id: 'exact', evaluator: 'langevals/exact_match', mapping: { output: 'target.output', expected_output: 'dataset.expected' } }],
    });
    const questions = ['a', 'b', 'c', 'd'];
    const started = await call('POST', '/api/experiments/served/run', { data: questions.map((q, i) => ({ question: q, expected: i < 2 ? `yes ${q}` : 'no' })) });
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      if ((await call('GET', `/api/experiments/runs/${started.runId}?experimentSlug=served`)).status === 'completed') break;
    }
    const served = await call('GET', `/api/experiments/served/runs/${started.runId}/rows?pageSize=50`);
    const traceOf = (i: number) => served.rows.find((r: { index: number }) => r.index === i).traceId as string;
    expect(served.rows).toHaveLength(4);
    for (const row of served.rows) expect(typeof row.traceId, `a served row without its trace: ${JSON.stringify(row)}`).toBe('string');
    // people pass the first and the last
    for (const i of [0, 1, 2, 3]) await label(traceOf(i), i === 0 || i === 3);

    const a = await call('GET', `/api/judge-alignment?evaluator=langevals/exact_match&scoreConfig=${correct}`);
    // 12 logged rows (row 0 by its trace's own result) and 4 served ones
    expect(a.n).toBe(16);
    // people fail / pass down, the judge fail / pass across
    // logged: row 0 (people pass, judge fails by its trace result), rows 1..5 pass/pass, 6,7 fail/pass, 8,9 fail/fail, 10,11 pass/fail
    // served: 0 pass/pass, 1 fail/pass, 2 fail/fail, 3 pass/fail
    expect(a.confusion).toEqual([
      [3, 3],
      [4, 6],
    ]);
    expect(a.disagreements).toContainEqual({ traceId: 'row-0', human: true, judge: false, reasoning: expect.not.stringMatching(/^row 0$/) });
    expect(a.disagreements).toContainEqual({ traceId: 'row-6', human: false, judge: true, reasoning: 'row 6' });
    expect(a.disagreements).toContainEqual(expect.objectContaining({ traceId: traceOf(3), human: true, judge: false }));
    expect(a.disagreements).toHaveLength(7);

    // The judges to choose from count the rows' results: 1 on a trace, 12 logged, 4 served.
    const judges = await call('GET', '/api/judge-alignment/judges');
    expect(judges.data).toContainEqual({ evaluator: 'langevals/exact_match', versions: [], results: 17 });
    // The server run's evaluator id is no judge of its own.
    expect(judges.data.map((j: { evaluator: string }) => j.evaluator)).not.toContain('exact');
    // The trust a run page shows is the same judge's, on the same 16 labels.
    const trust = await call('GET', '/api/judge-alignment/trust?evaluator=langevals/exact_match');
    expect(trust.data[0]).toMatchObject({ n: 16, trust: { state: 'not enough labels', reason: '16 of 50 labels' } });
  }, 300_000);

  it('categories (weighted kappa when ordered) and numbers (Spearman, mean absolute error) over HTTP; a judge of another kind is a 400 naming the evaluator', async () => {
    const tone = (await call('POST', '/api/score-configs', { name: 'Tone level', kind: 'categorical', categories: ['low', 'mid', 'high'] })).data.id as string;
    const quality = (await call('POST', '/api/score-configs', { name: 'Quality', kind: 'numeric', min: 1, max: 10 })).data.id as string;
    const levels = ['low', 'mid', 'high'];
    // 9 rows: people say low, mid, high by turns; the judge agrees but on row 1 (mid -> high, a near miss) and row 2 (high -> low, a far one).
    const judgeLevel = (i: number) => (i === 1 ? 'high' : i === 2 ? 'low' : levels[i % 3]);
    // 10 rows: people score 1..5 twice; the judge scores double (the same order, 3 off on average).
    await call('POST', '/api/evaluations/batch/log_results', {
      experiment_slug: 'kinds',
      run_id: 'k1',
      dataset: Array.from({ length: 10 }, (_, i) => ({ index: i, entry: { q: `q${i}` }, predicted: { output: 'a' }, trace_id: `kind-${i}` })),
      evaluations: [
        ...Array.from({ length: 9 }, (_, i) => ({ evaluator: 'tone-judge', index: i, status: 'processed', label: judgeLevel(i) })),
        ...Array.from({ length: 10 }, (_, i) => ({ evaluator: 'quality-judge', index: i, status: 'processed', score: 2 * ((i % 5) + 1) })),
      ],
      timestamps: { created_at: Date.parse('2026-11-22T10:00:00Z'), finished_at: Date.parse('2026-11-22T10:01:00Z') },
    });
    for (let i = 0; i < 10; i++) {
      const scores = [{ configId: quality, value: (i % 5) + 1 }, ...(i < 9 ? [{ configId: tone, value: levels[i % 3] }] : [])];
      await call('POST', `/api/annotations/trace/kind-${i}`, { comment: '', isThumbsUp: true, scores });
    }

    const plain = await call('GET', `/api/judge-alignment?evaluator=tone-judge&scoreConfig=${tone}`);
    expect(plain).toMatchObject({ n: 9, categories: levels, weighted: false, truePositiveRate: null, spearman: null, passRate: null });
    expect(plain.confusion).toEqual([
      [3, 0, 0],
      [0, 2, 1],
      [1, 0, 2],
    ]);
    expect(plain.accuracy.value).toBeCloseTo(7 / 9, 12);
    // po = 7/9; the judge says low 4, mid 2, high 3 times, people 3 each: pe = (12 + 6 + 9) / 81
    const pe = 27 / 81;
    expect(plain.kappa.value).toBeCloseTo((7 / 9 - pe) / (1 - pe), 12);
    const ordered = await call('GET', `/api/judge-alignment?evaluator=tone-judge&scoreConfig=${tone}&ordered=true`);
    expect(ordered.weighted).toBe(true);
    // the far miss costs more than the near one: weighted kappa differs from the plain one
    expect(ordered.kappa.value).not.toBeCloseTo(plain.kappa.value, 6);
    for (const e of [plain.kappa, ordered.kappa]) expect(e.low <= e.value && e.value <= e.high && e.n === 9).toBe(true);
    expect(plain.disagreements).toContainEqual({ traceId: 'kind-2', human: 'high', judge: 'low', reasoning: null });

    const numbers = await call('GET', `/api/judge-alignment?evaluator=quality-judge&scoreConfig=${quality}`);
    expect(numbers).toMatchObject({ n: 10, confusion: null, kappa: null, categories: null });
    expect(numbers.spearman.value).toBeCloseTo(1, 12);
    expect(numbers.meanAbsoluteError.value).toBeCloseTo(3, 12);
    expect(numbers.trust.rule.statistic).toBe('spearman');
    // off by more than a quarter of the range (2.25): rows people scored 3, 4, 5
    expect(numbers.disagreements).toHaveLength(6);

    // A judge of labels against a numeric score, and one of scores against categories: kinds that cannot match.
    for (const [evaluator, config] of [
      ['tone-judge', quality],
      ['quality-judge', tone],
    ]) {
      const bad = await t.request('GET', `/api/judge-alignment?evaluator=${evaluator}&scoreConfig=${config}`, { authToken: t.creds.projectApiKey });
      expect(bad.status, bad.text).toBe(400);
      expect(bad.body.error.meta.field).toBe('querystring.evaluator');
    }
  }, 300_000);
});
