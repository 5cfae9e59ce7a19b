/**
 * The LangWatch TypeScript SDK (`langwatch` on npm, unmodified) logging an experiment to
 * Spyglass: langwatch.experiments.init, evaluation.run with evaluation.log, and
 * evaluation.withTarget; then what it logged is read back through the API.
 * PGlite only: the SDK is what this file tests, not the database.
 */
import { LangWatch } from 'langwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/harness.ts';

interface Row {
  index: number;
  targetId: string | null;
  entry: Record<string, unknown>;
  predicted: Record<string, unknown> | null;
  duration: number | null;
  error: string | null;
}
interface Evaluation {
  index: number;
  targetId: string | null;
  evaluator: string;
  name: string | null;
  score: number | null;
  passed: boolean | null;
  status: string;
}

describe('LangWatch TypeScript SDK: experiments', () => {
  let t: TestApp;
  let langwatch: LangWatch;
  const dataset = [
    { question: 'What is 2+2?', expected: '4' },
    { question: 'Capital of France?', expected: 'Paris' },
    { question: 'Colour of the sky?', expected: 'blue' },
  ];
  const answer = (q: string) => (q.includes('2+2') ? '4' : q.includes('France') ? 'Paris' : 'green');
  const silent = { debug() {}, info() {}, warn() {}, error() {} };

  beforeAll(async () => {
    t = await startApp('pglite');
    langwatch = new LangWatch({ apiKey: t.creds.projectApiKey, endpoint: t.baseUrl, logger: silent } as ConstructorParameters<typeof LangWatch>[0]);
  });
  afterAll(() => t?.close());

  const read = (url: string) => t.request('GET', url, { authToken: t.creds.projectApiKey });

  it('evaluation.run with evaluation.log: one row per item, one result per metric, the run completed', async () => {
    const evaluation = await langwatch.experiments.init('SDK accuracy check', { runId: 'sdk-run-log' });
    await evaluation.run(
      dataset,
      async ({ item, index }) => {
        const output = answer(item.question);
        const correct = output === item.expected;
        evaluation.log('accuracy', { index, score: correct ? 1 : 0, passed: correct, data: { output } });
        if (index === 2) throw new Error('the agent failed on this one');
      },
      { concurrency: 2 },
    );

    const runs = await read('/api/experiments/runs?experimentSlug=sdk-accuracy-check');
    expect(runs.status, JSON.stringify(runs.body)).toBe(200);
    expect(runs.body.runs).toHaveLength(1);
    expect(runs.body.runs[0]).toMatchObject({ runId: 'sdk-run-log', progress: 3, total: 3 });
    expect(runs.body.runs[0].summary.evaluations.accuracy).toEqual({ name: 'accuracy', averageScore: 2 / 3, averagePassed: 2 / 3 });

    const results = await read('/api/experiments/runs/sdk-run-log/results?experimentSlug=sdk-accuracy-check');
    expect(results.status).toBe(200);
    const rows = results.body.dataset as Row[];
    expect(rows.map((r) => [r.index, r.targetId])).toEqual([[0, null], [1, null], [2, null]]);
    expect(rows.map((r) => r.entry)).toEqual(dataset);
    expect(rows[2].error).toBe('the agent failed on this one');
    expect(rows[0].error).toBeNull();
    for (const r of rows) expect(typeof r.duration).toBe('number');
    const evals = results.body.evaluations as Evaluation[];
    expect(evals.map((e) => [e.index, e.evaluator, e.score, e.passed, e.status])).toEqual([
      [0, 'accuracy', 1, true, 'processed'],
      [1, 'accuracy', 1, true, 'processed'],
      [2, 'accuracy', 0, false, 'processed'],
    ]);

    const status = await read('/api/evaluations/v3/runs/sdk-run-log?experimentSlug=sdk-accuracy-check');
    expect(status.body).toMatchObject({ runId: 'sdk-run-log', status: 'completed', progress: 3, total: 3 });
    expect(status.body.summary).toMatchObject({ totalCells: 3, failedCells: 1, totalPassed: 2, totalFailed: 1 });
  });

  it('evaluation.withTarget: rows per target with their outputs, targets with their metadata', async () => {
    const evaluation = await langwatch.experiments.init('SDK target comparison', { runId: 'sdk-run-targets' });
    await evaluation.run(dataset, async ({ item, index }) => {
      await evaluation.withTarget('fast-model', { model: 'openai/gpt-4o-mini', temperature: 0 }, async () => {
        const output = answer(item.question);
        evaluation.log('exact', { score: output === item.expected ? 1 : 0, passed: output === item.expected });
        return output;
      });
      await evaluation.withTarget('careful-model', { model: 'openai/gpt-4o' }, async () => {
        evaluation.log('exact', { index, score: 1, passed: true });
        return { output: item.expected };
      });
    });

    const results = await read('/api/experiments/runs/sdk-run-targets/results?experimentSlug=sdk-target-comparison');
    expect(results.status).toBe(200);
    const b = results.body;
    expect(b.progress).toBe(6);
    expect(b.dataset.map((r: Row) => [r.index, r.targetId])).toEqual([
      [0, 'careful-model'],
      [0, 'fast-model'],
      [1, 'careful-model'],
      [1, 'fast-model'],
      [2, 'careful-model'],
      [2, 'fast-model'],
    ]);
    const fast2 = (b.dataset as Row[]).find((r) => r.index === 2 && r.targetId === 'fast-model')!;
    expect(fast2.predicted).toEqual({ output: 'green' });
    expect(fast2.entry).toEqual(dataset[2]);
    expect((b.dataset as Row[]).find((r) => r.index === 1 && r.targetId === 'careful-model')!.predicted).toEqual({ output: 'Paris' });
    expect(b.evaluations).toHaveLength(6);
    expect((b.evaluations as Evaluation[]).filter((e) => e.targetId === 'fast-model').map((e) => e.passed)).toEqual([true, true, false]);
    const targets = (b.targets as { id: string; type: string; metadata: unknown }[]).sort((x, y) => x.id.localeCompare(y.id));
    expect(targets).toEqual([
      expect.objectContaining({ id: 'careful-model', name: 'careful-model', type: 'custom', metadata: { model: 'openai/gpt-4o' } }),
      expect.objectContaining({ id: 'fast-model', name: 'fast-model', type: 'custom', metadata: { model: 'openai/gpt-4o-mini', temperature: 0 } }),
    ]);

    const status = await read('/api/experiments/runs/sdk-run-targets?experimentSlug=sdk-target-comparison');
    expect(status.body.status).toBe('completed');
    const byTarget = Object.fromEntries((status.body.summary.targets as { targetId: string; passed: number; failed: number }[]).map((x) => [x.targetId, [x.passed, x.failed]]));
    expect(byTarget).toEqual({ 'careful-model': [3, 0], 'fast-model': [2, 1] });

    const list = await read('/api/experiments');
    const slugs = (list.body.experiments as { slug: string; name: string; type: string }[]).map((e) => [e.slug, e.name, e.type]);
    expect(slugs).toEqual(
      expect.arrayContaining([
        ['sdk-accuracy-check', 'SDK accuracy check', 'BATCH_EVALUATION_V2'],
        ['sdk-target-comparison', 'SDK target comparison', 'BATCH_EVALUATION_V2'],
      ]),
    );
  });
  it('evaluation.evaluate with LangWatch evaluator names: the server runs the evaluator, the SDK logs its result', async () => {
    const evaluation = await langwatch.experiments.init('SDK built-in evaluators', { runId: 'sdk-run-evaluate' });
    const rows = [{ text: 'Call me at +1 202-555-0143 or mail jane.doe@example.com' }, { text: 'The weather is fine today.' }];
    await evaluation.run(rows, async ({ item, index }) => {
      await evaluation.evaluate('presidio/pii_detection', { index, data: { input: item.text, output: '' } });
      await evaluation.evaluate('ragas/context_recall', {
        index,
        name: 'recall',
        data: { contexts: ['Paris is the capital of France.'], expected_contexts: ['Paris is the capital of France.'] },
      });
    });

    const results = await read('/api/experiments/runs/sdk-run-evaluate/results?experimentSlug=sdk-built-in-evaluators');
    expect(results.status).toBe(200);
    const evals = (results.body.evaluations as Evaluation[]).map((e) => [e.index, e.evaluator, e.status, e.passed, e.score]);
    expect(evals).toEqual([
      [0, 'presidio/pii_detection', 'processed', false, expect.any(Number)],
      [0, 'recall', 'processed', null, 1],
      [1, 'presidio/pii_detection', 'processed', true, expect.any(Number)],
      [1, 'recall', 'processed', null, 1],
    ]);
  });

  it('langwatch.evaluations.evaluate: one result object, by LangWatch name or Spyglass path; interface clients still get arrays', async () => {
    const guard = await langwatch.evaluations.evaluate('presidio/pii_detection', {
      data: { input: 'my e-mail is jane.doe@example.com', output: '' },
      name: 'PII guardrail',
      asGuardrail: true,
    });
    expect(guard).toMatchObject({ status: 'processed', passed: false });
    const neutral = await langwatch.evaluations.evaluate('pii/pii_detection', { data: { input: 'nothing personal here', output: '' } });
    expect(neutral).toMatchObject({ status: 'processed', passed: true });

    const plain = await t.request('POST', '/api/evaluations/pii/pii_detection/evaluate', {
      authToken: t.creds.projectApiKey,
      body: { data: { input: 'jane.doe@example.com', output: '' } },
    });
    expect(plain.status).toBe(200);
    expect(Array.isArray(plain.body)).toBe(true);
    expect(plain.body[0]).toMatchObject({ status: 'processed', passed: false });
    const aliased = await t.request('POST', '/api/evaluations/presidio/pii_detection/evaluate', {
      authToken: t.creds.projectApiKey,
      body: { data: { input: 'jane.doe@example.com', output: '' } },
    });
    expect(aliased.body).toMatchObject({ status: 'processed', passed: false });

    const catalogue = await read('/api/evaluations');
    const pii = (catalogue.body.evaluators as { path: string; aliases: string[] }[]).filter((e) => e.path === 'pii/pii_detection' || e.aliases.includes('presidio/pii_detection'));
    expect(pii).toEqual([expect.objectContaining({ path: 'pii/pii_detection', aliases: ['presidio/pii_detection'] })]);
  });
});
