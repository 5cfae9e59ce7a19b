/**
 * A judge against itself: run m times on the same labelled traces, how often its repeats
 * disagree, per item and overall (docs/judge-alignment.md). The judge is a custom one answered
 * by a loopback model that is steady on some traces and flips a coin on others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, toolCallReply, type FakeServer, type RecordedRequest } from '../evaluators/fake-servers.ts';
import { createTenant, databaseKinds, startApp, type TestApp } from '../support/harness.ts';

describe.each(databaseKinds)('judge self-consistency (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  let key: string;
  let unsure = 0;

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (r: RecordedRequest) => {
      const body = r.body as { messages: { role: string; content: string }[] };
      const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
      // "maybe" answers get pass and fail by turns: repeats on them never all agree
      if (/maybe/.test(user)) return toolCallReply('verdict', { reasoning: 'unsure', passed: unsure++ % 2 === 0 });
      return toolCallReply('verdict', { reasoning: 'checked the tone', passed: /thank/i.test(user) });
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

  it('runs the judge m times on the labelled traces and reports how often its repeats disagree, per item and overall with intervals; m out of 2..10 is a 400 naming the field', async () => {
    const judge = await req('POST', '/api/custom-evaluators', {
      slug: 'polite',
      name: 'Polite',
      prompt: 'Question: {{input}}\nAnswer: {{output}}\nIs the answer polite?',
      model: 'local/gpt-4o-mini',
      answer: { type: 'pass_fail' },
    });
    expect(judge.status, judge.text).toBe(201);
    const config = await req('POST', '/api/score-configs', { name: 'Polite', kind: 'boolean' });
    expect(config.status, config.text).toBe(201);
    const configId = config.body.data.id as string;

    // 30 traces: 10 thankful, 10 curt, 10 "maybe"; the judge scored each once and people labelled each
    const output = (i: number) => (i % 3 === 0 ? 'Thank you, it arrives tomorrow.' : i % 3 === 1 ? 'No.' : 'It maybe arrives.');
    for (let i = 0; i < 30; i++) {
      const at = Date.parse('2026-11-28T10:00:00Z') + i * 1000;
      const ingested = await req('POST', '/api/collector', {
        trace_id: `tr-${i}`,
        spans: [{ span_id: `sp-${i}`, type: 'llm', input: { type: 'text', value: `Where is parcel ${i}?` }, output: { type: 'text', value: output(i) }, timestamps: { started_at: at, finished_at: at + 100 } }],
      });
      expect(ingested.status, ingested.text).toBe(200);
      const judged = await req('POST', '/api/evaluations/custom/polite/evaluate', { data: { input: `Where is parcel ${i}?`, output: output(i) }, trace_id: `tr-${i}` });
      expect(judged.status, judged.text).toBe(200);
      const labelled = await req('POST', `/api/annotations/trace/tr-${i}`, { comment: 'checked', isThumbsUp: i % 3 === 0, scores: [{ configId, value: i % 3 === 0 }] });
      expect(labelled.status, labelled.text).toBe(200);
    }

    const run = (body: object) => req('POST', '/api/judge-alignment/self-consistency', { evaluator: 'custom/polite', scoreConfig: configId, ...body });
    for (const [body, field] of [
      [{ repeats: 1 }, 'body.repeats'],
      [{ repeats: 11 }, 'body.repeats'],
      [{ repeats: 3, limit: 0 }, 'body.limit'],
      [{ repeats: 3, version: 7 }, 'body.version'],
      [{ repeats: 3, scoreConfig: 'score_nope' }, 'body.scoreConfig'],
    ] as const) {
      const bad = await run(body);
      expect(bad.status, `${JSON.stringify(body)} ${bad.text}`).toBe(400);
      expect(bad.body.error.meta.field).toBe(field);
    }

    const calls = fake.requests.length;
    const res = await run({ repeats: 3, limit: 50 });
    expect(res.status, res.text).toBe(200);
    expect(fake.requests.length - calls).toBe(90);
    const a = res.body;
    expect(a).toMatchObject({ evaluator: 'custom/polite', version: null, repeats: 3, items: 30, unmeasured: 0, scoreConfig: { id: configId, kind: 'boolean' } });
    // the 10 "maybe" traces disagree with themselves: 2 of their 3 pairs of repeats differ
    expect(a.disagreeingItems.value).toBeCloseTo(10 / 30, 12);
    expect(a.disagreeingItems.low).toBeLessThan(10 / 30);
    expect(a.disagreeingItems.high).toBeGreaterThan(10 / 30);
    expect(a.pairwiseDisagreement.value).toBeCloseTo((10 * (2 / 3)) / 30, 12);
    expect(a.pairwiseDisagreement.low).toBeLessThan(a.pairwiseDisagreement.value);
    for (const item of a.data) {
      const i = Number(item.traceId.slice(3));
      expect(item.values, item.traceId).toHaveLength(3);
      expect(item.disagree, item.traceId).toBe(i % 3 === 2);
      if (i % 3 === 0) expect(item.values).toEqual([true, true, true]);
    }
    expect(a.summary).toMatch(/^Run 3 times on the same 30 items, the judge's repeats disagreed on 10 of them \(33 %/);

    // another project sees no such config
    const other = await req('POST', '/api/judge-alignment/self-consistency', { evaluator: 'custom/polite', scoreConfig: configId, repeats: 2 }, (await createTenant(t)).projectToken);
    expect(other.status).toBe(400);
    expect(other.body.error.meta.field).toBe('body.scoreConfig');
  }, 600_000);
});
