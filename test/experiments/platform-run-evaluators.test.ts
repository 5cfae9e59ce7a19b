/**
 * Platform runs with the project's own pieces: custom evaluators (custom/<slug>, their version
 * pinned when a run starts and shown with its rows) and model providers set in the app (a
 * prompt target naming a model and an LLM judge use the project's provider; no OPENAI_API_KEY
 * in the environment). The provider is a loopback OpenAI-compatible fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, textReply, toolCallReply, type FakeServer, type RecordedRequest } from '../evaluators/fake-servers.ts';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';

const PROVIDER_KEY = 'sk-project-provider-91Zq';

describe.each(appDatabaseKinds)('platform runs with custom evaluators and project providers (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  let key: string;

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (req: RecordedRequest) => {
      const body = req.body as { tools?: { function: { name: string } }[]; messages: { role: string; content: string }[] };
      const tool = body.tools?.[0]?.function.name;
      if (tool === 'verdict') {
        // The custom judge: passes when the answer names what the dataset expects.
        const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
        const [, expected] = /Expected: (.*)/.exec(user) ?? [];
        const [, answer] = /Answer: (.*)/.exec(user) ?? [];
        return toolCallReply('verdict', { reasoning: 'compared', passed: !!expected && !!answer && answer.includes(expected) });
      }
      if (tool) return toolCallReply(tool, { reasoning: 'fine', final_score: 4 });
      const last = body.messages[body.messages.length - 1].content;
      return textReply(last.includes('2+2') ? 'It is 4' : 'I do not know');
    };
    // No OPENAI_API_KEY: only the provider set in the app can answer.
    t = await startApp(kind);
    key = t.creds.projectApiKey;
    const provider = await t.request('POST', '/api/model-providers', {
      token: t.creds.adminApiKey,
      projectId: t.creds.project.id,
      body: { name: 'local', kind: 'openai_compatible', api_key: PROVIDER_KEY, base_url: `${fake.url}/v1`, models: ['gpt-4o-mini'] },
    });
    expect(provider.status, provider.text).toBe(201);
    const ds = await req('POST', '/api/dataset', { name: 'Sums', columnTypes: [{ name: 'question', type: 'string' }, { name: 'expected', type: 'string' }] });
    expect(ds.status, ds.text).toBe(201);
    const added = await req('POST', '/api/dataset/sums/records', { entries: [{ question: 'What is 2+2?', expected: '4' }, { question: 'What is 3+3?', expected: '6' }] });
    expect(added.status, added.text).toBe(201);
    const prompt = await req('POST', '/api/prompts', {
      handle: 'sums',
      model: 'local/gpt-4o-mini',
      prompt: 'Answer briefly.',
      messages: [{ role: 'user', content: '{{question}}' }],
      inputs: [{ identifier: 'question', type: 'str' }],
    });
    expect(prompt.status, prompt.text).toBe(200);
    const judge = await req('POST', '/api/custom-evaluators', {
      slug: 'correct',
      name: 'Correct',
      prompt: 'Question: {{question}}\nExpected: {{expected}}\nAnswer: {{answer}}\nIs the answer correct?',
      model: 'local/gpt-4o-mini',
      answer: { type: 'pass_fail' },
    });
    expect(judge.status, judge.text).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  function req(method: string, url: string, body?: unknown) {
    return t.request(method, url, { authToken: key, ...(body === undefined ? {} : { body }) });
  }

  const definition = {
    dataset: { id: 'sums' },
    targets: [{ id: 'sums-prompt', type: 'prompt', prompt: 'sums' }],
    evaluators: [
      { id: 'correct', evaluator: 'custom/correct', mapping: { answer: 'target.output' } },
      { id: 'score', evaluator: 'llm/llm_score', settings: { model: 'local/gpt-4o-mini', prompt: 'Score it from 0 to 5' } },
    ],
  };

  async function run(slug: string) {
    const started = await req('POST', `/api/experiments/${slug}/run`, {});
    expect(started.status, started.text).toBe(200);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const s = await req('GET', `/api/experiments/runs/${started.body.runId}?experimentSlug=${slug}`);
      if (s.body.status !== 'running') return { runId: started.body.runId as string, status: s.body };
      if (Date.now() > deadline) throw new Error(`run still running: ${s.text}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  it('checks a custom evaluator as the evaluate route does: unknown slug, a key its template lacks, its variables as data keys', async () => {
    const unknown = await req('PUT', '/api/experiments/sums-check/definition', { ...definition, evaluators: [{ id: 'x', evaluator: 'custom/nope' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.meta.field).toBe('body.evaluators.0.evaluator');
    const badKey = await req('PUT', '/api/experiments/sums-check/definition', { ...definition, evaluators: [{ id: 'x', evaluator: 'custom/correct', mapping: { output: 'target.output' } }] });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.meta.field).toBe('body.evaluators.0.mapping.output');
    const noProvider = await req('PUT', '/api/experiments/sums-check/definition', {
      ...definition,
      evaluators: [{ id: 'x', evaluator: 'llm/llm_score', settings: { model: 'elsewhere/m', prompt: 'p' } }],
    });
    expect(noProvider.status).toBe(400);
    expect(noProvider.body.error.meta.field).toBe('body.evaluators.0.settings.model');

    const put = await req('PUT', '/api/experiments/sums-check/definition', definition);
    expect(put.status, put.text).toBe(200);
    // The template's variables are its data keys: `answer` as mapped, the others from the columns of the same name.
    expect(put.body.evaluators[0]).toMatchObject({ evaluator: 'custom/correct', name: 'Correct', mapping: { answer: 'target.output', question: 'dataset.question', expected: 'dataset.expected' } });
  });

  it('runs the prompt and both judges through the project provider, and records the custom version the run ran', async () => {
    fake.requests.length = 0;
    const { runId, status } = await run('sums-check');
    expect(status.status).toBe('completed');
    // 2 rows: a prompt call, a custom judge and an llm_score judge each, all with the project's key.
    expect(fake.requests).toHaveLength(6);
    for (const r of fake.requests) expect(r.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);

    const rows = await req('GET', `/api/experiments/sums-check/runs/${runId}/rows`);
    expect(rows.status, rows.text).toBe(200);
    expect(rows.body.evaluators).toEqual(
      expect.arrayContaining([
        { evaluator: 'correct', name: 'Correct', version: 1 },
        { evaluator: 'score', name: expect.any(String), version: null },
      ]),
    );
    const [first, second] = rows.body.rows;
    expect(first.predicted).toEqual({ output: 'It is 4' });
    expect(first.evaluations.correct).toMatchObject({ status: 'processed', passed: true });
    expect(second.evaluations.correct).toMatchObject({ status: 'processed', passed: false });
    expect(first.evaluations.score).toMatchObject({ status: 'processed', score: 4 });

    // A new version of the evaluator: the next run pins it, the first run still shows version 1.
    const v2 = await req('PATCH', '/api/custom-evaluators/correct', {
      prompt: 'Question: {{question}}\nExpected: {{expected}}\nAnswer: {{answer}}\nIs the answer right? Be strict.',
    });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.body.version).toBe(2);
    const again = await run('sums-check');
    const rows2 = await req('GET', `/api/experiments/sums-check/runs/${again.runId}/rows`);
    expect(rows2.body.evaluators.find((e: { evaluator: string }) => e.evaluator === 'correct').version).toBe(2);
    expect((await req('GET', `/api/experiments/sums-check/runs/${runId}/rows`)).body.evaluators.find((e: { evaluator: string }) => e.evaluator === 'correct').version).toBe(1);
  });

  it('a custom evaluator deleted after the definition was saved: the run is refused naming it', async () => {
    const made = await req('POST', '/api/custom-evaluators', { slug: 'gone', name: 'Gone', prompt: 'Answer: {{answer}}', model: 'local/gpt-4o-mini', answer: { type: 'pass_fail' } });
    expect(made.status, made.text).toBe(201);
    const put = await req('PUT', '/api/experiments/sums-gone/definition', { ...definition, evaluators: [{ id: 'gone', evaluator: 'custom/gone', mapping: { answer: 'target.output' } }] });
    expect(put.status, put.text).toBe(200);
    expect((await req('DELETE', '/api/custom-evaluators/gone')).status).toBeLessThan(300);
    const started = await req('POST', '/api/experiments/sums-gone/run', {});
    expect(started.status).toBe(400);
    expect(started.body.error.meta.field).toBe('evaluators.0.evaluator');
  });
});
