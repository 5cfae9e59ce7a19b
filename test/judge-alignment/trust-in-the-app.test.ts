import { describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
import { runCliInProcess, useTmpDirs } from '../support/server-process.ts';

const tmpDir = useTmpDirs();

/**
 * What the app builds on an alignment, over HTTP: the project's stored trust rule (and the CLI
 * gate following it), the judges to choose from, a judge's trust where its numbers appear,
 * "label more" and "send the disagreements to a review queue" (docs/judge-alignment.md).
 */
describe.each(databaseKinds)('judge trust in the app (%s)', (kind) => {
  let p: ProjectApp;
  useProjectApp(kind, (app) => (p = app));
  const call = (method: string, url: string, body?: unknown, token = p.key) => p.t.request(method, url, { authToken: token, body });

  it('a stored trust rule decides the state and the CLI gate; judges, trust with a corrected rate, label more, disagreements to a queue; bad input names the field', async () => {
    const made = await call('POST', '/api/score-configs', { name: 'Correct', kind: 'boolean' });
    expect(made.status, made.text).toBe(201);
    const correct = made.body.data.id as string;
    // People pass the even traces of 60. The judge passes 24 of their 30 passes and 10 of their 30 fails;
    // on 20 more nobody labelled, it passes every fourth.
    const humanPass = (i: number) => i % 2 === 0;
    const judgePass = (i: number) => (i >= 60 ? i % 4 === 0 : humanPass(i) ? i % 10 !== 0 : i % 6 === 1);
    for (let i = 0; i < 80; i++) {
      const judged = await call('POST', '/api/evaluations/langevals/exact_match/evaluate', { data: { output: judgePass(i) ? 'yes' : 'no', expected_output: 'yes' }, trace_id: `tr-${i}` });
      expect(judged.status, judged.text).toBe(200);
      if (i < 60) {
        const labelled = await call('POST', `/api/annotations/trace/tr-${i}`, { comment: '', isThumbsUp: humanPass(i), scores: [{ configId: correct, value: humanPass(i) }] });
        expect(labelled.status, labelled.text).toBe(200);
      }
    }
    const align = async () => {
      const res = await call('GET', `/api/judge-alignment?evaluator=langevals/exact_match&scoreConfig=${correct}`);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };

    // The rule: the default until the team sets one.
    expect((await call('GET', '/api/judge-alignment/trust-rule')).body).toEqual({ statistic: 'kappa', atLeast: 0.6, minimumLabels: 50, stored: false });
    const before = await align();
    expect(before.trust).toMatchObject({ state: 'not trusted', rule: { statistic: 'kappa', atLeast: 0.6, minimumLabels: 50 } });
    for (const [body, field] of [
      [{ statistic: 'kappa', atLeast: 1.5, minimumLabels: 50 }, 'body.atLeast'],
      [{ statistic: 'kappa', atLeast: 0.5, minimumLabels: 0 }, 'body.minimumLabels'],
      [{ statistic: 'kappa', atLeast: 0.5, minimumLabels: 2.5 }, 'body.minimumLabels'],
      [{ statistic: 'f1', atLeast: 0.5, minimumLabels: 50 }, 'body.statistic'],
      [{ statistic: 'kappa', minimumLabels: 50 }, 'body.atLeast'],
    ] as const) {
      const bad = await call('PUT', '/api/judge-alignment/trust-rule', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error.meta.field, JSON.stringify(body)).toBe(field);
    }
    // Accuracy's lower bound (about 0.62 on 60 labels at 44/60) meets a bar of 0.5: trusted by the team's rule.
    const set = await call('PUT', '/api/judge-alignment/trust-rule', { statistic: 'accuracy', atLeast: 0.5, minimumLabels: 40 });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ statistic: 'accuracy', atLeast: 0.5, minimumLabels: 40, stored: true });
    expect((await call('GET', '/api/judge-alignment/trust-rule')).body).toEqual(set.body);
    const after = await align();
    expect(after.trust.state).toBe('trusted');
    expect(after.trust.reason).toMatch(/^accuracy's 95 % lower bound is 0\.\d\d on 60 labels; the bar is 0\.5$/);
    expect(after.trust.rule).toEqual({ statistic: 'accuracy', atLeast: 0.5, minimumLabels: 40 });
    // Another project keeps the default.
    expect((await call('GET', '/api/judge-alignment/trust-rule', undefined, p.other.projectToken)).body.stored).toBe(false);

    // The CI gate reads the stored rule: trusted now, and not trusted once the bar is out of reach.
    const logged = await call('POST', '/api/evaluations/batch/log_results', {
      experiment_slug: 'gated',
      run_id: 'r1',
      dataset: [{ index: 0, entry: { q: 'q' }, predicted: { output: 'a' } }],
      evaluations: [{ evaluator: 'langevals/exact_match', index: 0, status: 'processed', passed: true, score: 1 }],
      timestamps: { created_at: Date.parse('2026-11-22T10:00:00Z'), finished_at: Date.parse('2026-11-22T10:01:00Z') },
    });
    expect(logged.status, logged.text).toBe(200);
    const gate = () =>
      runCliInProcess(['experiment', 'check', 'gated', '--run', 'r1', '--require-trusted', `langevals/exact_match=${correct}`, '--server', p.t.baseUrl], { HOME: tmpDir(), SPYGLASS_API_KEY: p.key }, { timeoutMs: 120_000 });
    const trusted = await gate();
    expect(trusted.code, trusted.out).toBe(0);
    expect(trusted.stdout).toContain('judge langevals/exact_match: trusted (accuracy');
    expect((await call('PUT', '/api/judge-alignment/trust-rule', { statistic: 'accuracy', atLeast: 0.9, minimumLabels: 40 })).status).toBe(200);
    const untrusted = await gate();
    expect(untrusted.code, untrusted.out).toBe(1);
    expect(untrusted.stderr).toContain('the judge is not trusted');
    expect((await call('PUT', '/api/judge-alignment/trust-rule', { atLeast: 0.6, minimumLabels: 50 })).body).toEqual({ statistic: 'kappa', atLeast: 0.6, minimumLabels: 50, stored: true });

    // The judges to choose from.
    const judges = await call('GET', '/api/judge-alignment/judges');
    expect(judges.status, judges.text).toBe(200);
    expect(judges.body.data).toContainEqual({ evaluator: 'langevals/exact_match', versions: [], results: 80 });

    // Trust where the judge's numbers appear, with a monitor's raw 30 of 40 corrected by the same resamples.
    const trust = await call('GET', '/api/judge-alignment/trust?evaluator=langevals/exact_match&passed=30&judged=40');
    expect(trust.status, trust.text).toBe(200);
    const againstCorrect = trust.body.data.find((t: { scoreConfig: { id: string } }) => t.scoreConfig.id === correct);
    expect(againstCorrect).toMatchObject({ n: 60, trust: { state: 'not trusted' } });
    // Rogan-Gladen: (0.75 + 2/3 - 1) / (0.8 + 2/3 - 1)
    expect(againstCorrect.corrected.value).toBeCloseTo((0.75 + 2 / 3 - 1) / (0.8 + 2 / 3 - 1), 12);
    expect(againstCorrect.corrected.low).toBeLessThan(againstCorrect.corrected.value);
    expect((await call('GET', '/api/judge-alignment/trust?evaluator=langevals/exact_match')).body.data[0].corrected).toBeNull();
    expect((await call('GET', '/api/judge-alignment/trust?evaluator=nobody/here')).body.data).toEqual([]);
    for (const [query, field] of [
      ['&passed=3', 'querystring.judged'],
      ['&passed=5&judged=4', 'querystring.passed'],
      ['&passed=-1&judged=4', 'querystring.passed'],
      ['&version=0', 'querystring.version'],
    ]) {
      const bad = await call('GET', `/api/judge-alignment/trust?evaluator=langevals/exact_match${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.meta.field, query).toBe(field);
    }

    // Label more: TNR (2/3 on 30) has a wider interval than TPR (0.8 on 30), so the traces the judge failed come first.
    const more = await call('GET', `/api/judge-alignment/label-more?evaluator=langevals/exact_match&scoreConfig=${correct}&limit=16`);
    expect(more.status, more.text).toBe(200);
    expect(more.body.unlabelled).toBe(20);
    expect(more.body.rule).toMatch(/^The true-negative rate has the widest interval, so traces the judge failed come first/);
    expect(more.body.data).toHaveLength(16);
    expect(more.body.data.slice(0, 15).every((t: { judge: boolean; traceId: string }) => t.judge === false && Number(t.traceId.slice(3)) >= 60)).toBe(true);
    expect(more.body.data[15].judge).toBe(true);
    const badLimit = await call('GET', `/api/judge-alignment/label-more?evaluator=langevals/exact_match&scoreConfig=${correct}&limit=0`);
    expect(badLimit.body.error.meta.field).toBe('querystring.limit');

    // Every disagreement (16) to a new queue in one step; again to the same queue adds none.
    const send = (body: object) => call('POST', '/api/judge-alignment/disagreements/review', { evaluator: 'langevals/exact_match', scoreConfig: correct, ...body });
    const sent = await send({ newQueueName: 'Judge disagreements' });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ queue: { name: 'Judge disagreements' }, added: 16, alreadyQueued: 0 });
    const queue = await call('GET', `/api/queues/${sent.body.queue.id}`);
    expect(queue.body.data.scoreConfigIds).toEqual([correct]);
    const items = await call('GET', `/api/queues/${sent.body.queue.id}/items?pageSize=100`);
    expect(items.status, items.text).toBe(200);
    expect(new Set(items.body.data.map((i: { traceId: string }) => i.traceId))).toEqual(new Set(before.disagreements.map((d: { traceId: string }) => d.traceId)));
    expect((await send({ queueId: sent.body.queue.id })).body).toMatchObject({ added: 0, alreadyQueued: 16 });
    for (const [body, field, status] of [
      [{}, 'body.queueId', 400],
      [{ queueId: sent.body.queue.id, newQueueName: 'x' }, 'body.queueId', 400],
      [{ queueId: 'queue_nope' }, 'body.queueId', 400],
      [{ newQueueName: 'Judge disagreements' }, 'body.newQueueName', 409],
      [{ newQueueName: 'Other', scoreConfig: 'score_nope' }, 'body.scoreConfig', 400],
      [{ newQueueName: 'Other', version: 2 }, 'body.version', 400],
    ] as const) {
      const bad = await send(body);
      expect(bad.status, JSON.stringify(body)).toBe(status);
      expect(bad.body.error.meta.field, JSON.stringify(body)).toBe(field);
    }
  }, 600_000);
});
