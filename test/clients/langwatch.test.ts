/**
 * The LangWatch TypeScript SDK (`langwatch` on npm) against Spyglass: its tracing
 * (setupObservability + getLangWatchTracer, LLM calls recorded as its docs show, with the
 * official `openai` client) and its prompt fetch (prompts.get by handle, version and tag).
 * PGlite only: the SDK registers process-wide globals, and the database is not what this
 * file tests. The compatibility table of docs/getting-started.md lists what works and what does not.
 */
import { setupObservability } from 'langwatch/observability/node';
import { getLangWatchTracer, LangWatch } from 'langwatch';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  ANSWER,
  expectFailed,
  expectMessages,
  expectReportedUsage,
  llmSpan,
  PROMPTS,
  REQUEST_MODEL,
  RESPONSE_MODEL,
  storedTrace,
  useClientTest,
} from './support.ts';

describe('LangWatch TypeScript SDK', () => {
  let langwatch: LangWatch;
  const c = useClientTest(async ({ t, fake, ids }) => {
    const observability = setupObservability({
      langwatch: { apiKey: t.creds.projectApiKey, endpoint: t.baseUrl, processorType: 'simple' },
      serviceName: 'langwatch-client-test',
    });
    langwatch = new LangWatch({ apiKey: t.creds.projectApiKey, endpoint: t.baseUrl });
    const client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    const tracer = getLangWatchTracer('fidelity-app');

    await tracer.withActiveSpan('plain call', async (span) => {
      ids.plain = span.spanContext().traceId;
      const messages = [{ role: 'user' as const, content: PROMPTS.plain }];
      span.setType('llm').setRequestModel(REQUEST_MODEL).setInput('chat_messages', messages);
      const r = await client.chat.completions.create({ model: REQUEST_MODEL, messages });
      span
        .setResponseModel(r.model)
        .setOutput('chat_messages', [{ role: 'assistant', content: r.choices[0].message.content ?? '' }])
        .setMetrics({ promptTokens: r.usage!.prompt_tokens, completionTokens: r.usage!.completion_tokens });
    });
    await tracer.withActiveSpan('streamed call', async (span) => {
      ids.streamed = span.spanContext().traceId;
      const messages = [{ role: 'user' as const, content: PROMPTS.streamed }];
      span.setType('llm').setRequestModel(REQUEST_MODEL).setInput('chat_messages', messages).setAttribute('langwatch.gen_ai.streaming', true);
      const stream = await client.chat.completions.create({ model: REQUEST_MODEL, messages, stream: true, stream_options: { include_usage: true } });
      let text = '';
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) span.setMetrics({ promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens });
        if (chunk.model) span.setResponseModel(chunk.model);
      }
      span.setOutput('chat_messages', [{ role: 'assistant', content: text }]);
    });
    await tracer
      .withActiveSpan('failing call', async (span) => {
        ids.failing = span.spanContext().traceId;
        const messages = [{ role: 'user' as const, content: PROMPTS.failing }];
        span.setType('llm').setRequestModel(REQUEST_MODEL).setInput('chat_messages', messages);
        await client.chat.completions.create({ model: REQUEST_MODEL, messages });
      })
      .catch(() => undefined);
    await observability.shutdown();

    // Prompts to fetch: three versions, version 2 tagged production.
    const created = await t.request('POST', '/api/prompts', {
      token: t.creds.projectApiKey,
      body: { handle: 'support/reply', prompt: 'v1: you answer for {{company}}.', messages: [{ role: 'user', content: '{{question}}' }] },
    });
    expect(created.status).toBe(200);
    for (const n of [2, 3]) {
      const put = await t.request('PUT', '/api/prompts/support%2Freply', {
        token: t.creds.projectApiKey,
        body: { commitMessage: `v${n}`, prompt: `v${n}: you answer for {{company}}.` },
      });
      expect(put.status).toBe(200);
    }
    await t.request('PUT', '/api/prompts/support%2Freply/tags/production', { token: t.creds.projectApiKey, body: { version: 2 } });
  });

  it('tracing, plain call: typed input/output, camelCase metrics in their {type, value} wrapper, cost', async () => {
    const span = llmSpan(await storedTrace(c.t, c.ids.plain));
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.input, [['user', PROMPTS.plain]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    // The SDK's metrics carry prompt and completion tokens (and cost), no cached or reasoning counts.
    expectReportedUsage(span, { prompt: 11, completion: 7, cached: null, reasoning: null });
  });

  it('tracing, streamed call: the usage of the last chunk; the SDK has no first-token field', async () => {
    const span = llmSpan(await storedTrace(c.t, c.ids.streamed));
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.output, [['assistant', ANSWER]]);
    expectReportedUsage(span, { prompt: 11, completion: 7, cached: null, reasoning: null });
    expect(span.timestamps.first_token_at).toBeNull();
  });

  it('tracing, failing call: the span records the error; no usage, so no tokens and no cost', async () => {
    const stored = await storedTrace(c.t, c.ids.failing);
    const span = llmSpan(stored);
    expect(span.model).toBe(REQUEST_MODEL);
    expect(span.metrics).toMatchObject({ prompt_tokens: null, completion_tokens: null, tokens_estimated: false, cost: null });
    expectFailed(stored, /500/);
  });

  it('prompts.get by handle, by version and by tag', async () => {
    const latest = await langwatch.prompts.get('support/reply');
    expect(latest).toMatchObject({ handle: 'support/reply', version: 3, prompt: 'v3: you answer for {{company}}.' });
    expect(latest.compile({ company: 'Acme', question: 'Where is my parcel?' }).messages).toEqual([{ role: 'user', content: 'Where is my parcel?' }]);
    // The handle shorthand reaches Spyglass as it is: handle:N and handle:tag.
    expect(await langwatch.prompts.get('support/reply:1')).toMatchObject({ version: 1, prompt: 'v1: you answer for {{company}}.' });
    expect(await langwatch.prompts.get('support/reply:production')).toMatchObject({ version: 2 });
    await expect(langwatch.prompts.get('support/reply:9')).rejects.toThrow(/version 9/);
    // The SDK's own API client with ?version= and ?tag=, the query newer SDK releases send.
    const get = (query: object) => langwatch.apiClient.GET('/api/prompts/{id}', { params: { path: { id: 'support/reply' }, query: query as never } });
    expect((await get({ version: 1 })).data).toMatchObject({ version: 1 });
    expect((await get({ tag: 'production' })).data).toMatchObject({ version: 2 });
    // This release's prompts.get(handle, {version}) puts the query beside `params`, where its
    // HTTP client does not read it: no version reaches any server, the newest answers.
    expect(await langwatch.prompts.get('support/reply', { version: '1' })).toMatchObject({ version: 3 });
  });

  it('evaluations.evaluate: a plain client gets the spec\'s array, the SDK (which sends span_id) its one object', async () => {
    const raw = await c.t.request('POST', '/api/evaluations/llm/competitor_blocklist/evaluate', {
      authToken: c.t.creds.projectApiKey,
      body: { data: { input: 'Is OpenAI better?', output: 'Maybe.' } },
    });
    expect(Array.isArray(raw.body)).toBe(true);
    const viaSdk = await langwatch.evaluations.evaluate('llm/competitor_blocklist', { data: { input: 'Is OpenAI better?', output: 'Maybe.' } });
    expect(viaSdk.status).toBe('processed');
  });
});
