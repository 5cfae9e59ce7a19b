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
    expect(served.rows.every((r: { traceId: string | null }) => typeof r.traceId === 'string')).toBe(true);
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
});
