/**
 * Repetitions: a server run repeats each row k times, an SDK run logs a repetition index; each
 * result keeps it, and the comparison of two runs averages a row's tries before pairing and
 * splits the spread into the noise within rows and the differences between rows. Fakes at the
 * edge only: a loopback OpenAI-compatible provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer, type RecordedRequest, type Reply } from '../evaluators/fake-servers.ts';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';

function completion(text: string): Reply {
  return {
    kind: 'json',
    body: {
      id: 'chatcmpl-x',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const variance = (xs: number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};

describe.each(databaseKinds)('repetitions (%s)', (kind) => {
  let t: TestApp;
  let openai: FakeServer;
  let key: string;
  let calls = 0;

  beforeAll(async () => {
    openai = await startFakeServer();
    // every third answer names the competitor: the blocklist fails it, so a row's tries differ
    openai.fallback = (req: RecordedRequest) => {
      const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
      calls++;
      return completion(calls % 3 === 0 ? 'Ask Acme' : `The answer to: ${messages[messages.length - 1].content}`);
    };
    t = await startApp(kind, { env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${openai.url}/v1` } });
    key = t.creds.projectApiKey;
    const prompt = await req('POST', '/api/prompts', {
      handle: 'qa',
      prompt: 'Answer briefly.',
      messages: [{ role: 'user', content: '{{question}}' }],
      inputs: [{ identifier: 'question', type: 'str' }],
    });
    expect(prompt.status, prompt.text).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await openai?.close();
  });

  const req = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, ...(body === undefined ? {} : { body }) });

  async function waitFor(runId: string, slug: string) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const s = await req('GET', `/api/experiments/runs/${runId}?experimentSlug=${slug}`);
      expect(s.status, s.text).toBe(200);
      if (s.body.status !== 'running') return s.body;
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${JSON.stringify(s.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const definition = {
    targets: [{ id: 'qa-prompt', type: 'prompt', prompt: 'qa' }],
    evaluators: [{ id: 'no-competitors', evaluator: 'langevals/competitor_blocklist', settings: { competitors: ['Acme'] }, mapping: { output: 'target.output', input: 'dataset.question' } }],
    concurrency: 2,
  };

  it('a server run repeats each row k times; every result and evaluation keeps its repetition; k out of 1..10 is a 400 naming the field', async () => {
    for (const [bad, field] of [
      [{ ...definition, repetitions: 11 }, 'body.repetitions'],
      [{ ...definition, repetitions: 0 }, 'body.repetitions'],
      [{ ...definition, repetitions: 2.5 }, 'body.repetitions'],
    ] as const) {
      const res = await req('PUT', '/api/experiments/repeat-qa/definition', bad);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.meta.field).toBe(field);
    }
    const put = await req('PUT', '/api/experiments/repeat-qa/definition', { ...definition, repetitions: 3 });
    expect(put.status, put.text).toBe(200);
    expect(put.body.repetitions).toBe(3);
    expect((await req('GET', '/api/experiments/repeat-qa/definition')).body.repetitions).toBe(3);

    const tooMany = await req('POST', '/api/experiments/repeat-qa/run', { data: [{ question: 'a' }], repetitions: 12 });
    expect(tooMany.status, tooMany.text).toBe(400);
    expect(tooMany.body.error.meta.field).toBe('body.repetitions');

    const data = [{ question: 'What is 2+2?' }, { question: 'Capital of France?' }];
    const started = await req('POST', '/api/experiments/repeat-qa/run', { data });
    expect(started.status, started.text).toBe(200);
    expect(started.body.total).toBe(6);
    const status = await waitFor(started.body.runId, 'repeat-qa');
    expect(status.status, JSON.stringify(status)).toBe('completed');

    const results = await req('GET', `/api/experiments/runs/${started.body.runId}/results?experimentSlug=repeat-qa`);
    expect(results.status, results.text).toBe(200);
    const keys = results.body.dataset.map((d: { index: number; repetition: number }) => `${d.index}/${d.repetition}`).sort();
    expect(keys).toEqual(['0/0', '0/1', '0/2', '1/0', '1/1', '1/2']);
    const evalKeys = results.body.evaluations.map((e: { index: number; repetition: number }) => `${e.index}/${e.repetition}`).sort();
    expect(evalKeys).toEqual(keys);

    const rows = await req('GET', `/api/experiments/repeat-qa/runs/${started.body.runId}/rows`);
    expect(rows.status, rows.text).toBe(200);
    expect(rows.body.rows.map((r: { index: number; repetition: number }) => [r.index, r.repetition])).toEqual([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
    for (const r of rows.body.rows) expect(r.evaluations['no-competitors'].status).toBe('processed');

    // the run's own override: twice instead of three times
    const twice = await req('POST', '/api/experiments/repeat-qa/run', { data, repetitions: 2 });
    expect(twice.status, twice.text).toBe(200);
    expect(twice.body.total).toBe(4);
    expect((await waitFor(twice.body.runId, 'repeat-qa')).status).toBe('completed');

    // the two runs compared: two rows, so not enough data, but the repetitions are reported
    const cmp = await req('GET', `/api/experiments/repeat-qa/compare?runs=${started.body.runId},${twice.body.runId}`);
    expect(cmp.status, cmp.text).toBe(200);
    const c = cmp.body.comparisons[0];
    expect(c.sharedRows).toBe(2);
    const ev = c.evaluators[0];
    expect(ev.verdict).toBe('not enough data');
    expect(ev.passRate.n).toBe(2);
    expect(ev.repetitions).toMatchObject({ baseline: 3, current: 2, rows: 2 });
  });

  /** Logs a run as an SDK does: each try with its repetition index, or none at all. */
  async function logRun(slug: string, runId: string, tries: { index: number; repetition?: number; score: number; passed?: boolean }[]) {
    const res = await req('POST', '/api/evaluations/batch/log_results', {
      experiment_slug: slug,
      run_id: runId,
      dataset: tries.map((x) => ({ index: x.index, ...(x.repetition === undefined ? {} : { repetition: x.repetition }), entry: { q: `q${x.index}` }, predicted: { output: `a${x.index}` } })),
      evaluations: tries.map((x) => ({
        evaluator: 'quality',
        index: x.index,
        ...(x.repetition === undefined ? {} : { repetition: x.repetition }),
        status: 'processed',
        score: x.score,
        ...(x.passed === undefined ? {} : { passed: x.passed }),
      })),
      timestamps: { created_at: Date.parse('2026-11-22T10:00:00Z'), finished_at: Date.parse('2026-11-22T10:01:00Z') },
    });
    expect(res.status, res.text).toBe(200);
  }

  it('SDK runs log a repetition index (absent is 0); the comparison averages tries within a row and splits the spread within and between rows', async () => {
    const bad = await req('POST', '/api/evaluations/batch/log_results', { experiment_slug: 'sdk-rep', run_id: 'x', dataset: [{ index: 0, repetition: -1, entry: {} }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.meta.field).toBe('body.dataset.0.repetition');

    // 30 rows; the baseline tries each row 3 times, the current run 3 times with each row shifted by +0.1 plus a row effect
    const rows = 30;
    const noise = (i: number, r: number) => (((i * 7 + r * 13) % 5) - 2) / 20; // -0.1..0.1, varies by try
    const rowEffect = (i: number) => ((i % 6) - 2.5) / 10; // -0.25..0.25, varies by row
    const base: { index: number; repetition?: number; score: number }[] = [];
    const current: { index: number; repetition?: number; score: number }[] = [];
    for (let i = 0; i < rows; i++) {
      for (let r = 0; r < 3; r++) {
        // the baseline's first try is logged without an index: it is repetition 0
        base.push({ index: i, ...(r === 0 ? {} : { repetition: r }), score: 0.5 + noise(i, r) });
        current.push({ index: i, repetition: r, score: 0.6 + rowEffect(i) + noise(i + 1, r + 1) });
      }
    }
    await logRun('sdk-rep', 'base', base);
    await logRun('sdk-rep', 'cur', current);
    // a repost of the same key replaces it (no try is counted twice)
    await logRun('sdk-rep', 'base', [{ index: 0, repetition: 1, score: 0.5 + noise(0, 1) }]);

    const results = await req('GET', '/api/experiments/runs/base/results?experimentSlug=sdk-rep');
    expect(results.body.dataset).toHaveLength(90);
    expect(results.body.dataset.filter((d: { repetition: number }) => d.repetition === 0)).toHaveLength(30);

    const cmp = await req('GET', '/api/experiments/sdk-rep/compare?runs=base,cur');
    expect(cmp.status, cmp.text).toBe(200);
    const c = cmp.body.comparisons[0];
    expect(c.sharedRows).toBe(30);
    const ev = c.evaluators.find((e: { evaluator: string }) => e.evaluator === 'quality');
    expect(ev.decidedBy).toBe('score');
    // over rows, not tries
    expect(ev.score.n).toBe(30);
    const rowDiffs = Array.from({ length: rows }, (_, i) => mean([0, 1, 2].map((r) => 0.6 + rowEffect(i) + noise(i + 1, r + 1))) - mean([0, 1, 2].map((r) => 0.5 + noise(i, r))));
    expect(ev.score.difference).toBeCloseTo(mean(rowDiffs), 10);
    expect(ev.score.low).toBeLessThan(mean(rowDiffs));
    expect(ev.score.high).toBeGreaterThan(mean(rowDiffs));
    expect(ev.verdict).toBe('better');
    // within: each row's tries paired by index; between: the variance of row means less the noise's share
    const tryDiffs = Array.from({ length: rows }, (_, i) => [0, 1, 2].map((r) => 0.6 + rowEffect(i) + noise(i + 1, r + 1) - (0.5 + noise(i, r))));
    const within = mean(tryDiffs.map(variance));
    const between = Math.max(0, variance(rowDiffs) - within / 3);
    expect(ev.repetitions).toMatchObject({ baseline: 3, current: 3, rows: 30 });
    expect(ev.repetitions.withinRowSd).toBeCloseTo(Math.sqrt(within), 10);
    expect(ev.repetitions.betweenRowSd).toBeCloseTo(Math.sqrt(between), 10);
    expect(ev.repetitions.summary).toMatch(/averaged before pairing/);

    // runs without repetitions answer no repetitions
    await logRun('sdk-plain', 'a', Array.from({ length: 25 }, (_, i) => ({ index: i, score: i / 25 })));
    await logRun('sdk-plain', 'b', Array.from({ length: 25 }, (_, i) => ({ index: i, score: i / 25 })));
    const plain = await req('GET', '/api/experiments/sdk-plain/compare?runs=a,b');
    expect(plain.body.comparisons[0].evaluators[0].repetitions).toBeNull();
    expect(plain.body.comparisons[0].evaluators[0].score.n).toBe(25);
  });
});
