/**
 * Improving a judge (docs/judge-alignment.md): a new version of a custom judge run over the
 * traces people labelled and the old version scored, as an experiment run whose target is the
 * judge (its rows on the experiments API), and whether it agrees with people more, with the
 * paired statistics of run comparisons and a verdict in words. The judge is answered by a
 * loopback model: version 1 passes only thankful answers, version 2 polite ones too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, toolCallReply, type FakeServer, type RecordedRequest } from '../evaluators/fake-servers.ts';
import { createTenant, databaseKinds, startApp, type TestApp } from '../support/harness.ts';

describe.each(databaseKinds)('judge version comparison (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  let key: string;

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (r: RecordedRequest) => {
      const body = r.body as { messages: { role: string; content: string }[] };
      const text = body.messages.map((m) => m.content).join('\n');
      const polite = /Polite or thankful/.test(text) ? /Thank you|Please wait/.test(text) : /Thank you/.test(text);
      return toolCallReply('verdict', { reasoning: 'read the tone', passed: polite });
    };
    t = await startApp(kind);
    key = t.creds.projectApiKey;
    const provider = await t.request('POST', '/api/model-providers', {
      token: t.creds.adminApiKey,
      projectId: t.creds.project.id,
      body: { name: 'local', kind: 'openai_compatible', api_key: 'sk-local-123456', base_url: `${fake.url}/v1`, models: ['gpt-4o-mini'] },
    });
    expect(provider.status, provider.text).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const req = (method: string, url: string, body?: unknown, token = key) => t.request(method, url, { authToken: token, ...(body === undefined ? {} : { body }) });
  /** The comparison once its run ended (the server's runner runs it). */
  const finished = async (id: string) => {
    for (const deadline = Date.now() + 120_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const res = await req('GET', `/api/judge-alignment/version-comparisons/${id}`);
      expect(res.status, res.text).toBe(200);
      if (res.body.status !== 'running' || Date.now() > deadline) return res.body;
    }
  };

  it('runs the new version on the labelled traces and says, with a paired interval, whether it agrees with people more; too few items is "not enough data"; bad input names the field', async () => {
    const made = await req('POST', '/api/custom-evaluators', {
      slug: 'polite',
      name: 'Polite',
      prompt: 'Question: {{input}}\nAnswer: {{output}}\nIs the answer thankful?',
      model: 'local/gpt-4o-mini',
      answer: { type: 'pass_fail' },
    });
    expect(made.status, made.text).toBe(201);
    const configId = (await req('POST', '/api/score-configs', { name: 'Polite', kind: 'boolean' })).body.data.id as string;
    // 40 traces: thankful, asking nicely, curt, rude by turns; people pass the first two kinds. Version 1 scored each.
    const output = (i: number) => ['Thank you, it arrives tomorrow.', 'Please wait a day.', 'No.', 'Whatever.'][i % 4];
    for (let i = 0; i < 40; i++) {
      const at = Date.parse('2026-11-28T10:00:00Z') + i * 1000;
      const sent = await req('POST', '/api/collector', {
        trace_id: `vc-${i}`,
        spans: [{ span_id: `vs-${i}`, type: 'llm', input: { type: 'text', value: `Where is parcel ${i}?` }, output: { type: 'text', value: output(i) }, timestamps: { started_at: at, finished_at: at + 100 } }],
      });
      expect(sent.status, sent.text).toBe(200);
      const judged = await req('POST', '/api/evaluations/custom/polite/evaluate', { data: { input: `Where is parcel ${i}?`, output: output(i) }, trace_id: `vc-${i}` });
      expect(judged.status, judged.text).toBe(200);
      const labelled = await req('POST', `/api/annotations/trace/vc-${i}`, { comment: '', isThumbsUp: i % 4 < 2, scores: [{ configId, value: i % 4 < 2 }] });
      expect(labelled.status, labelled.text).toBe(200);
    }
    const v2 = await req('PATCH', '/api/custom-evaluators/polite', { prompt: 'Question: {{input}}\nAnswer: {{output}}\nPolite or thankful?' });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.body.version).toBe(2);

    const start = (body: object, token = key) => req('POST', '/api/judge-alignment/version-comparisons', { evaluator: 'custom/polite', version: 1, candidateVersion: 2, scoreConfig: configId, ...body }, token);
    for (const [body, field] of [
      [{ candidateVersion: 9 }, 'body.candidateVersion'],
      [{ candidateVersion: 1 }, 'body.candidateVersion'],
      [{ version: 2, candidateVersion: 1 }, 'body.version'],
      [{ evaluator: 'langevals/exact_match' }, 'body.evaluator'],
      [{ scoreConfig: 'score_nope' }, 'body.scoreConfig'],
      [{ limit: 0 }, 'body.limit'],
      [{ limit: 501 }, 'body.limit'],
    ] as const) {
      const bad = await start(body);
      expect(bad.status, `${JSON.stringify(body)} ${bad.text}`).toBe(400);
      expect(bad.body.error.meta.field).toBe(field);
    }

    const calls = fake.requests.length;
    const started = await start({});
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ evaluator: 'custom/polite', baselineVersion: 1, candidateVersion: 2, limit: 200, status: 'running', result: null, scoreConfig: { id: configId, kind: 'boolean' } });
    expect(started.body.run).toEqual({ experimentSlug: 'judge-versions-polite', runId: expect.any(String), url: expect.stringContaining(`/experiments/judge-versions-polite?runId=${started.body.run.runId}`) });
    const done = await finished(started.body.id);
    expect(fake.requests.length - calls).toBe(40);
    expect(done.status).toBe('done');
    expect(done.run).toEqual(started.body.run);

    // The new version ran as an experiment whose target is the judge: its run and rows are the experiments API's.
    const { runId } = started.body.run;
    const runs = await req('GET', '/api/experiments/runs?experimentSlug=judge-versions-polite');
    expect(runs.status, runs.text).toBe(200);
    expect(runs.body.runs.map((r: { runId: string }) => r.runId)).toEqual([runId]);
    expect(runs.body.runs[0]).toMatchObject({ progress: 40, total: 40, targets: [{ id: 'judge', name: 'Polite v2', type: 'evaluator', evaluatorId: 'custom/polite', metadata: { version: 2 } }] });
    const status = await req('GET', `/api/experiments/runs/${runId}?experimentSlug=judge-versions-polite`);
    expect(status.body).toMatchObject({ status: 'completed', summary: { completedCells: 40, failedCells: 0 } });
    const results = await req('GET', `/api/experiments/runs/${runId}/results?experimentSlug=judge-versions-polite`);
    expect(results.status, results.text).toBe(200);
    expect(results.body.dataset).toHaveLength(40);
    // each row: the labelled item (what its trace gives a judge, people's value, version 1's), linked to its trace, and version 2's answer
    const byTrace = new Map(results.body.dataset.map((r: { traceId: string }) => [r.traceId, r]));
    expect(byTrace.get('vc-1')).toMatchObject({
      targetId: 'judge',
      error: null,
      entry: { trace_id: 'vc-1', input: 'Where is parcel 1?', output: 'Please wait a day.', people: true, version_1: false },
      predicted: { output: { status: 'processed', passed: true, details: 'read the tone' } },
    });
    expect(byTrace.get('vc-3')).toMatchObject({ entry: { people: false, version_1: false }, predicted: { output: { passed: false } } });
    const r = done.result;
    // Version 1 agrees with people on 30 of 40 (it fails the 10 asking nicely), version 2 on all 40.
    expect(r).toMatchObject({ statistic: 'accuracy', n: 40, unmeasured: 0, verdict: 'better', itemsNeeded: null });
    expect(r.baseline.agreement.value).toBeCloseTo(0.75, 12);
    expect(r.candidate.agreement.value).toBe(1);
    expect(r.difference.value).toBeCloseTo(0.25, 12);
    expect(r.difference.low).toBeGreaterThan(0);
    expect(r.difference.low).toBeLessThan(0.25);
    expect(r.difference.high).toBeGreaterThan(0.25);
    expect(r.summary).toBe(`Version 2 agrees with people more than version 1: +0.25 accuracy [${r.difference.low.toFixed(2)}, ${r.difference.high.toFixed(2)}], n=40.`);
    expect(r.changed).toHaveLength(10);
    expect(r.changed[0]).toEqual({ traceId: expect.stringMatching(/^vc-\d+$/), human: true, baseline: false, candidate: true });

    // The same comparison again: the same seed, the same interval.
    const again = await finished((await start({})).body.id);
    expect(again.result.difference).toEqual(r.difference);

    // On 12 items the verdict admits it rests on too little.
    const thin = await finished((await start({ limit: 12 })).body.id);
    expect(thin.result).toMatchObject({ n: 12, verdict: 'not enough data', itemsNeeded: 20 });
    expect(thin.result.summary).toBe('Not enough data to compare version 2 with version 1: 12 items both versions judged; at least 20 items with labels and answers from both are needed.');

    const listed = await req('GET', '/api/judge-alignment/version-comparisons?evaluator=custom/polite');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((c: { id: string }) => c.id)[0]).toBe(thin.id);
    expect(listed.body.data).toHaveLength(3);
    // every comparison of the judge is a run of the one experiment
    expect((await req('GET', '/api/experiments/runs?experimentSlug=judge-versions-polite')).body.runs).toHaveLength(3);

    // Another project sees none of it.
    const other = await createTenant(t);
    expect((await req('GET', `/api/judge-alignment/version-comparisons/${started.body.id}`, undefined, other.projectToken)).status).toBe(404);
    expect((await start({}, other.projectToken)).body.error.meta.field).toBe('body.candidateVersion');
  }, 600_000);
});
