import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { databaseKinds, useProjectApp, type ProjectApp, type RequestOptions } from '../support/harness.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const MiB = 1024 * 1024;

describe.each(databaseKinds)('experiments logged by an SDK (%s)', (kind) => {
  let p: ProjectApp;
  const clock = useProjectApp(kind, (app) => (p = app));
  const as = (extra: RequestOptions = {}): RequestOptions => ({ authToken: p.key, ...extra });
  const post = (body: unknown, extra: RequestOptions = {}) => p.t.request('POST', '/api/evaluations/batch/log_results', as({ body, ...extra }));
  const get = (url: string, token = p.key) => p.t.request('GET', url, { authToken: token });
  const row = (index: number, extra: object = {}) => ({ index, entry: { question: `q${index}` }, predicted: { output: `a${index}` }, duration: 100 + index, cost: 0.01, ...extra });
  const evaluation = (index: number, extra: object = {}) => ({ evaluator: 'exact', name: 'Exact match', status: 'processed', index, score: 1, passed: true, ...extra });

  it('init creates the experiment once, answers its slug and page, and keeps its type', async () => {
    const first = await p.t.request('POST', '/api/experiment/init', as({ body: { experiment_type: 'BATCH_EVALUATION_V2', experiment_slug: 'My_Experiment v2!', experiment_name: 'My experiment' } }));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ slug: 'my-experiment-v2', path: `/p/${p.t.creds.project.id}/experiments/my-experiment-v2` });
    const again = await p.t.request('POST', '/api/experiment/init', as({ body: { experiment_type: 'DSPY', experiment_slug: 'my experiment v2', experiment_name: 'Renamed' } }));
    expect(again.body.slug).toBe('my-experiment-v2');
    const list = await get('/api/experiments');
    expect(list.status).toBe(200);
    const found = list.body.experiments.filter((e: { slug: string }) => e.slug === 'my-experiment-v2');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ name: 'Renamed', type: 'BATCH_EVALUATION_V2', runsCount: 0, lastRunAt: null, workflowId: null });
    expect(found[0].id).toContain('_');
  });

  it('a row’s entry and prediction read back with their keys in the order sent (a DataFrame’s columns)', async () => {
    // jsonb would answer {a, zeta, question_text}: shorter keys first.
    const entry = { zeta: 1, question_text: 'What is 2+2?', a: [1, 2], expected_output: '4' };
    const predicted = { output: '4', confidence: 0.9, b: true };
    const res = await post({ experiment_slug: 'key-order', run_id: 'run-order', timestamps: { created_at: T0 }, dataset: [{ index: 0, entry, predicted, duration: 5 }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const results = await get('/api/experiments/runs/run-order/results?experimentSlug=key-order');
    expect(results.status, JSON.stringify(results.body)).toBe(200);
    expect(Object.keys(results.body.dataset[0].entry)).toEqual(['zeta', 'question_text', 'a', 'expected_output']);
    expect(Object.keys(results.body.dataset[0].predicted)).toEqual(['output', 'confidence', 'b']);
    expect(results.body.dataset[0].entry).toEqual(entry);
  });

  it('init: 400 naming the field without slug or id, 404 for an unknown id', async () => {
    const none = await p.t.request('POST', '/api/experiment/init', as({ body: { experiment_type: 'BATCH_EVALUATION_V2' } }));
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ type: 'invalid_request', code: 'validation_error', meta: { field: 'body.experiment_slug' } });
    const badType = await p.t.request('POST', '/api/experiment/init', as({ body: { experiment_type: 'NOPE', experiment_slug: 'x' } }));
    expect(badType.status).toBe(400);
    expect(badType.body.error.meta.field).toBe('body.experiment_type');
    const empty = await p.t.request('POST', '/api/experiment/init', as({ body: { experiment_type: 'BATCH_EVALUATION_V2', experiment_slug: '!!!' } }));
    expect(empty.status).toBe(400);
    const unknown = await p.t.request('POST', '/api/experiment/init', as({ body: { experiment_type: 'BATCH_EVALUATION_V2', experiment_id: 'experiment_nope' } }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('experiment_not_found');
  });

  it('re-posted rows and evaluations replace, never duplicate; progress counts distinct keys', async () => {
    const slug = 'merge-rules';
    const base = { experiment_slug: slug, run_id: 'run-1', timestamps: { created_at: T0 } };
    const targets = [{ id: 'gpt', name: 'GPT', type: 'custom', metadata: { model: 'x' } }];
    expect((await post({ ...base, targets, total: 3, dataset: [row(0, { target_id: 'gpt' }), row(1)], evaluations: [evaluation(0, { target_id: 'gpt' })] })).status).toBe(200);
    // A retry of the same batch plus a changed row 1 (no target: null, absent and "" are one key) and a repeated key in one post.
    const res = await post({
      ...base,
      targets: [{ id: 'gpt', name: 'GPT-4', metadata: { type: 'prompt' } }],
      dataset: [row(0, { target_id: 'gpt' }), row(1, { target_id: '', error: 'first' }), row(1, { target_id: null, error: 'boom' }), row(2)],
      evaluations: [evaluation(0, { target_id: 'gpt', score: 0.5, passed: false }), evaluation(1, { status: 'error', score: null, passed: null, details: 'x' })],
      timestamps: { created_at: T0 + 5000 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ message: 'ok' });

    const results = await get(`/api/experiments/runs/run-1/results?experimentSlug=${slug}`);
    expect(results.status, JSON.stringify(results.body)).toBe(200);
    const b = results.body;
    expect(b.progress).toBe(3);
    expect(b.total).toBe(3);
    expect(b.timestamps).toEqual({ createdAt: T0, updatedAt: expect.any(Number), finishedAt: null, stoppedAt: null });
    expect(b.dataset.map((d: { index: number; targetId: string | null }) => [d.index, d.targetId])).toEqual([[0, 'gpt'], [1, null], [2, null]]);
    expect(b.dataset[1]).toMatchObject({ error: 'boom', entry: { question: 'q1' }, predicted: { output: 'a1' }, duration: 101, cost: 0.01, traceId: null });
    expect(b.evaluations).toHaveLength(2);
    expect(b.evaluations[0]).toMatchObject({ index: 0, targetId: 'gpt', evaluator: 'exact', score: 0.5, passed: false, status: 'processed' });
    expect(b.targets).toEqual([{ id: 'gpt', name: 'GPT-4', type: 'prompt', promptId: null, promptVersion: null, agentId: null, evaluatorId: null, model: null, metadata: { type: 'prompt' } }]);
    // The alias answers the same; without experimentSlug the only run with that id.
    const alias = await get('/api/evaluations/v3/runs/run-1/results');
    expect(alias.status).toBe(200);
    expect(alias.body).toEqual(b);

    const runs = await get(`/api/experiments/runs?experimentSlug=${slug}`);
    expect(runs.status).toBe(200);
    expect(runs.body.pagination).toEqual({ page: 1, pageSize: 50, totalHits: 1, hasMore: false });
    expect(runs.body.runs[0]).toMatchObject({ runId: 'run-1', workflowVersion: null, progress: 3, total: 3 });
    expect(runs.body.runs[0].summary).toEqual({
      datasetCost: expect.closeTo(0.03, 6),
      datasetAverageCost: expect.closeTo(0.01, 6),
      datasetAverageDuration: 101,
      evaluations: { exact: { name: 'Exact match', averageScore: 0.5, averagePassed: 0 } },
    });
  });

  it('logged runs answer their id as their name until a person renames them (PATCH); their targets say what ran', async () => {
    const slug = 'named-runs';
    const prompt = { id: 'answer', name: 'Answer', type: 'prompt', prompt_id: 'support-answer', prompt_version: 3, model: 'openai/gpt-4o-mini' };
    expect((await post({ experiment_slug: slug, run_id: 'with-prompt', targets: [prompt], dataset: [row(0, { target_id: 'answer' })], timestamps: { created_at: T0 } })).status).toBe(200);
    expect((await post({ experiment_slug: slug, run_id: 'nightly-2026-11-22', dataset: [row(0)], timestamps: { created_at: T0 + 60_000 } })).status).toBe(200);
    const names = async () => Object.fromEntries((await get(`/api/experiments/runs?experimentSlug=${slug}`)).body.runs.map((r: { runId: string; name: string }) => [r.runId, r.name]));
    expect(await names()).toEqual({ 'with-prompt': 'with-prompt', 'nightly-2026-11-22': 'nightly-2026-11-22' });
    const listed = (await get(`/api/experiments/runs?experimentSlug=${slug}`)).body.runs.find((r: { runId: string }) => r.runId === 'with-prompt');
    expect(listed.targets).toEqual([{ id: 'answer', name: 'Answer', type: 'prompt', promptId: 'support-answer', promptVersion: 3, agentId: null, evaluatorId: null, model: 'openai/gpt-4o-mini', metadata: null }]);

    const patch = (runId: string, body: unknown, s = slug) => p.t.request('PATCH', `/api/experiments/${s}/runs/${runId}`, as({ body }));
    const renamed = await patch('with-prompt', { name: '  shorter system prompt ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ runId: 'with-prompt', name: 'shorter system prompt', progress: 1 });
    expect((await names())['with-prompt']).toBe('shorter system prompt');
    expect((await get(`/api/experiments/runs/with-prompt?experimentSlug=${slug}`)).body.name).toBe('shorter system prompt');
    // Empty or null: back to the id.
    expect((await patch('with-prompt', { name: '' })).body.name).toBe('with-prompt');
    expect((await patch('with-prompt', { name: 'again' })).status).toBe(200);
    expect((await patch('with-prompt', { name: null })).body.name).toBe('with-prompt');

    const tooLong = await patch('with-prompt', { name: 'x'.repeat(256) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.meta.field).toBe('body.name');
    expect((await patch('with-prompt', {})).body.error.meta.field).toBe('body.name');
    expect((await patch('no-such-run', { name: 'x' })).body.error.code).toBe('run_not_found');
    expect((await patch('with-prompt', { name: 'x' }, 'no-such-experiment')).body.error.code).toBe('experiment_not_found');
    // Another project's run is not there.
    const other = await p.t.request('PATCH', `/api/experiments/${slug}/runs/with-prompt`, { authToken: p.other.projectToken, body: { name: 'taken over' } });
    expect(other.status).toBe(404);
    expect((await names())['with-prompt']).toBe('with-prompt');
  });

  it('status: running until finished_at, then completed with a summary; finished and started events go out once', async () => {
    const slug = 'status-run';
    const base = { experiment_slug: slug, run_id: 'run-s', timestamps: { created_at: T0 } };
    await post({ ...base, targets: [{ id: 't1', name: 'Target one' }], dataset: [row(0, { target_id: 't1' }), row(1, { target_id: 't1', error: 'x' })], evaluations: [evaluation(0, { target_id: 't1' }), evaluation(1, { target_id: 't1', passed: false, score: 0 })] });
    const running = await get(`/api/experiments/runs/run-s?experimentSlug=${slug}`);
    expect(running.status).toBe(200);
    // A logged run is named by its id (the caller's) until someone names it.
    expect(running.body).toEqual({ runId: 'run-s', name: 'run-s', status: 'running', progress: 2, total: 2, startedAt: T0 });
    await post({ ...base, timestamps: { finished_at: T0 + 60_000 } });
    await post({ ...base, dataset: [row(2, { target_id: 't1' })], timestamps: { finished_at: T0 + 70_000 } }); // rows after finished still merge
    const done = await get(`/api/evaluations/v3/runs/run-s?experimentSlug=${slug}`);
    expect(done.body).toMatchObject({ status: 'completed', progress: 3, total: 3, finishedAt: T0 + 70_000 });
    expect(done.body.summary).toMatchObject({
      runId: 'run-s',
      totalCells: 3,
      completedCells: 2,
      failedCells: 1,
      duration: 70_000,
      totalPassed: 1,
      totalFailed: 1,
      passRate: 50,
      targets: [{ targetId: 't1', name: 'Target one', passed: 1, failed: 1 }],
      evaluators: [{ evaluatorId: 'exact', name: 'Exact match', passed: 1, failed: 1, passRate: 50, avgScore: 0.5 }],
    });
    expect(done.body.summary.runUrl).toMatch(new RegExp(`/p/${p.t.creds.project.id}/experiments/${slug}\\?runId=run-s$`));
    const events = await rows<{ type: string; data: { run: { runId: string; status?: string } } }>(
      p.t.db.orm,
      sql`SELECT type, data FROM events WHERE type LIKE 'experiment_run.%' AND data->'run'->>'runId' = 'run-s' ORDER BY created_at, type`,
    );
    expect(events.map((e) => e.type).sort()).toEqual(['experiment_run.finished', 'experiment_run.started']);
    expect(events.find((e) => e.type === 'experiment_run.finished')!.data.run.status).toBe('completed');
    await post({ ...base, run_id: 'run-stopped', timestamps: { stopped_at: T0 + 1000 } });
    const stopped = await get(`/api/experiments/runs/run-stopped?experimentSlug=${slug}`);
    expect(stopped.body).toMatchObject({ status: 'stopped', progress: 0, summary: { totalCells: 0 } });
  });

  it('refused posts change nothing: seconds timestamps, missing fields, bad target type, unknown experiment id, 413', async () => {
    const base = { experiment_slug: 'refused', run_id: 'run-r', dataset: [row(0)] };
    for (const ts of [{ created_at: 1724345678 }, { finished_at: 1724345678 }, { stopped_at: 1724345678 }]) {
      const res = await post({ ...base, timestamps: ts });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('seconds_timestamp');
      expect(res.body.error.message).toMatch(/multiply by 1000/);
      expect(res.body.error.meta.field).toBe(`body.timestamps.${Object.keys(ts)[0]}`);
    }
    const noRun = await post({ experiment_slug: 'refused', dataset: [] });
    expect(noRun.status).toBe(400);
    expect(noRun.body.error.meta.field).toBe('body.run_id');
    const noRef = await post({ run_id: 'r' });
    expect(noRef.status).toBe(400);
    expect(noRef.body.error.meta.field).toBe('body.experiment_slug');
    const badIndex = await post({ ...base, dataset: [row(-1)] });
    expect(badIndex.body.error.meta.field).toBe('body.dataset.0.index');
    const badTarget = await post({ ...base, targets: [{ id: 'x', name: 'x', metadata: { type: 'robot' } }] });
    expect(badTarget.status).toBe(400);
    expect(badTarget.body.error.meta.field).toBe('body.targets.0.metadata.type');
    const unknown = await post({ experiment_id: 'experiment_nope', run_id: 'r' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('experiment_not_found');
    const notJson = await p.t.request('POST', '/api/evaluations/batch/log_results', as({ rawBody: 'run_id=x', headers: { 'content-type': 'text/plain' } }));
    expect(notJson.status).toBe(400);
    const broken = await p.t.request('POST', '/api/evaluations/batch/log_results', as({ rawBody: '{"run_id":', headers: { 'content-type': 'application/json' } }));
    expect(broken.status).toBe(400);
    expect(broken.body.error.type).toBe('invalid_request');
    const big = await post({ ...base, dataset: [row(0, { entry: { text: 'x'.repeat(20 * MiB) } })] });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ type: 'payload_too_large', code: 'payload_too_large' });
    // None of these created the experiment or the run.
    expect((await get('/api/experiments/runs?experimentSlug=refused')).status).toBe(404);
    expect((await get('/api/experiments/runs/run-r')).status).toBe(404);
  });

  it('NUL and lone surrogates in a results post are stored as U+FFFD', async () => {
    const res = await post({ experiment_slug: 'nul', run_id: 'run-n', dataset: [row(0, { predicted: { output: 'a\u0000b\ud800c' } })] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const read = await get('/api/experiments/runs/run-n/results?experimentSlug=nul');
    expect(read.body.dataset[0].predicted.output).toBe('a\ufffdb\ufffdc');
  });

  it('a run id held by two experiments is ambiguous without experimentSlug; 404s for unknown runs and experiments', async () => {
    await post({ experiment_slug: 'amb-a', run_id: 'shared', dataset: [row(0)] });
    await post({ experiment_slug: 'amb-b', run_id: 'shared', dataset: [row(0), row(1)] });
    const amb = await get('/api/experiments/runs/shared/results');
    expect(amb.status).toBe(400);
    expect(amb.body.error.code).toBe('ambiguous_run');
    expect((await get('/api/experiments/runs/shared')).body.error.code).toBe('ambiguous_run');
    expect((await get('/api/experiments/runs/shared/results?experimentSlug=amb-b')).body.progress).toBe(2);
    const missing = await get('/api/experiments/runs/nope/results?experimentSlug=amb-a');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('run_not_found');
    const noExp = await get('/api/experiments/runs?experimentSlug=never');
    expect(noExp.status).toBe(404);
    expect(noExp.body.error.code).toBe('experiment_not_found');
    expect((await get('/api/experiments/runs')).status).toBe(400);
  });

  it('another project sees none of it, and its own run ids do not collide', async () => {
    const other = p.other.projectToken;
    expect((await get('/api/experiments/runs/run-1/results?experimentSlug=merge-rules', other)).status).toBe(404);
    expect((await get('/api/experiments/runs/run-1', other)).status).toBe(404);
    expect((await get('/api/experiments/runs?experimentSlug=merge-rules', other)).status).toBe(404);
    expect((await get('/api/experiments', other)).body.experiments).toEqual([]);
    const own = await p.t.request('POST', '/api/evaluations/batch/log_results', { authToken: other, body: { experiment_slug: 'merge-rules', run_id: 'run-1', dataset: [row(9)] } });
    expect(own.status).toBe(200);
    expect((await get('/api/experiments/runs/run-1/results?experimentSlug=merge-rules', other)).body.progress).toBe(1);
    expect((await get('/api/experiments/runs/run-1/results?experimentSlug=merge-rules')).body.progress).toBe(3);
  });

  it('listing pages leniently: bad values fall back, pageSize is capped at 200', async () => {
    clock.advance(60_000);
    for (let i = 0; i < 3; i++) await post({ experiment_slug: 'paged', run_id: `p-${i}`, timestamps: { created_at: T0 + i * 1000 } });
    const page = await get('/api/experiments/runs?experimentSlug=paged&page=2&pageSize=2');
    expect(page.body.pagination).toEqual({ page: 2, pageSize: 2, totalHits: 3, hasMore: false });
    expect(page.body.runs.map((r: { runId: string }) => r.runId)).toEqual(['p-0']);
    const first = await get('/api/experiments/runs?experimentSlug=paged&page=1&pageSize=2');
    expect(first.body.runs.map((r: { runId: string }) => r.runId)).toEqual(['p-2', 'p-1']);
    expect(first.body.pagination.hasMore).toBe(true);
    const lenient = await get('/api/experiments?page=zero&pageSize=5000');
    expect(lenient.status).toBe(200);
    expect(lenient.body.pagination).toMatchObject({ page: 1, pageSize: 200 });
    expect(lenient.body.experiments[0].slug).toBe('paged'); // most recently updated first
    expect(lenient.body.experiments[0]).toMatchObject({ runsCount: 3, lastRunAt: new Date(T0 + 2000).toISOString() });
  });
});
