import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listTraceEvaluations } from '../../src/modules/evaluators/index.ts';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { errorReply, startFakeServer, textReply, toolCallReply, type FakeServer, type RecordedRequest } from './fake-servers.ts';

/** gpt-4o-mini: $0.15 / 1M input, $0.60 / 1M output; the fake reports 1000 + 200 tokens per call. */
const COST_PER_CALL = (1000 * 0.15 + 200 * 0.6) / 1e6;

function toolOf(req: RecordedRequest) {
  expect(req.body.tools).toHaveLength(1);
  const fn = req.body.tools[0].function;
  // Forced: the model must call this tool.
  expect(req.body.tool_choice).toEqual({ type: 'function', function: { name: fn.name } });
  return fn as { name: string; description: string; parameters: { type: string; properties: Record<string, any>; required: string[] } };
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const messagesOf = (req: RecordedRequest) => req.body.messages as Array<{ role: string; content: string }>;
const systemOf = (req: RecordedRequest) => messagesOf(req).find((m) => m.role === 'system')?.content ?? '';
const userOf = (req: RecordedRequest) => messagesOf(req).find((m) => m.role === 'user')?.content ?? '';

describe.each(appDatabaseKinds)('LLM judges against a loopback OpenAI-compatible server (%s)', (kind) => {
  let t: TestApp;
  let openai: FakeServer;

  beforeAll(async () => {
    openai = await startFakeServer();
    t = await startApp(kind, { env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${openai.url}/v1` } });
  });
  afterAll(async () => {
    await t.close();
    await openai.close();
  });
  beforeEach(() => {
    openai.requests.length = 0;
  });
  afterEach(() => {
    t.app.services.evaluations.limits.timeoutMs = 120_000;
  });

  const evaluate = async (path: string, body: unknown) => {
    const res = await t.request('POST', `/api/evaluations/${path}/evaluate`, { authToken: t.creds.projectApiKey, body });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toHaveLength(1);
    return res.body[0] as Record<string, any>;
  };

  const expectCommonRequest = (req: RecordedRequest, model = 'gpt-4o-mini') => {
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer test');
    expect(req.body.model).toBe(model);
    expect(req.body.temperature).toBe(0);
  };

  describe('llm/query_resolution', () => {
    const conversation = [
      { role: 'user', content: 'Hi! Where is my order #123?' },
      { role: 'assistant', content: 'It ships tomorrow.' },
      { role: 'user', content: 'And can I change the address?' },
      { role: 'assistant', content: 'I cannot help with that.' },
    ];

    it('sends the transcript and the forced tool; score = resolved / total', async () => {
      openai.queue(toolCallReply('query_resolution_evaluator', { reasoning: 'The address change was not resolved.', queries_total: 2, queries_answered: 1 }));
      const result = await evaluate('llm/query_resolution', { data: { conversation } });
      const [req] = openai.requests;
      expectCommonRequest(req);
      const tool = toolOf(req);
      expect(tool.name).toBe('query_resolution_evaluator');
      expect(tool.parameters.required.sort()).toEqual(['queries_answered', 'queries_total', 'reasoning']);
      expect(tool.parameters.properties.queries_total.type).toBe('number');
      expect(req.body.max_tokens).toBe(1024);
      expect(systemOf(req)).toMatch(/query resolution/i);
      expect(userOf(req)).toBe(
        'USER: Hi! Where is my order #123?\nASSISTANT: It ships tomorrow.\nUSER: And can I change the address?\nASSISTANT: I cannot help with that.',
      );
      expect(result).toMatchObject({
        status: 'processed',
        score: 0.5,
        passed: false,
        details: 'There were 2 queries in total and 1 of them were resolved in the conversation. Reasoning: The address change was not resolved.',
        cost: { currency: 'USD', amount: expect.closeTo(COST_PER_CALL, 15) },
        raw_response: { model: 'openai/gpt-4o-mini', usage: { calls: 1, prompt_tokens: 1000, completion_tokens: 200 } },
      });
    });

    it('all resolved passes; nothing to resolve scores 1', async () => {
      openai.queue(toolCallReply('query_resolution_evaluator', { reasoning: 'ok', queries_total: 2, queries_answered: 2 }));
      expect(await evaluate('llm/query_resolution', { data: { conversation } })).toMatchObject({ score: 1, passed: true });
      openai.queue(toolCallReply('query_resolution_evaluator', { reasoning: 'just greetings', queries_total: 0, queries_answered: 0 }));
      expect(await evaluate('llm/query_resolution', { data: { conversation: [{ role: 'user', content: 'hello' }] } })).toMatchObject({
        score: 1,
        passed: true,
      });
    });

    it('skipped without a user message; nothing is sent', async () => {
      expect(await evaluate('llm/query_resolution', { data: { conversation: [] } })).toMatchObject({ status: 'skipped', details: expect.stringContaining('no user message') });
      expect(await evaluate('llm/query_resolution', { data: { conversation: [{ role: 'user', content: '  ' }, { role: 'assistant', content: 'Hi' }] } })).toMatchObject({ status: 'skipped' });
      expect(openai.requests).toHaveLength(0);
    });
  });

  describe('llm/competitor_llm_function_call', () => {
    it('sends company, competitors (names or {name, description}) and the message; passed = not mentioned', async () => {
      openai.queue(toolCallReply('competitor_check', { reasoning: 'Bard is a Google product.', confidence: 0.9, competitor_mentioned: true }));
      const result = await evaluate('llm/competitor_llm_function_call', {
        data: { input: 'Should I ask Bard instead?', output: 'Maybe.' },
        settings: {
          name: 'Acme',
          description: 'We sell chatbots',
          competitors: ['OpenAI', { name: 'Google', description: 'makes Gemini and Bard' }],
        },
      });
      const [req] = openai.requests;
      expectCommonRequest(req);
      const tool = toolOf(req);
      expect(tool.name).toBe('competitor_check');
      expect(tool.parameters.properties).toMatchObject({
        reasoning: { type: 'string' },
        confidence: { type: 'number' },
        competitor_mentioned: { type: 'boolean' },
      });
      expect(systemOf(req)).toContain('Acme - We sell chatbots');
      expect(systemOf(req)).toContain('- OpenAI\n- Google: makes Gemini and Bard');
      expect(userOf(req)).toContain('Should I ask Bard instead?\nMaybe.');
      expect(result).toMatchObject({
        status: 'processed',
        score: 0.9,
        passed: false,
        details: '0.9 - confidence score. Reasoning: Bard is a Google product.',
        cost: { currency: 'USD', amount: expect.closeTo(COST_PER_CALL, 15) },
      });
    });

    it('no mention passes; as a guardrail the header says proceed', async () => {
      openai.queue(toolCallReply('competitor_check', { reasoning: 'Nothing about competitors.', confidence: 0.1, competitor_mentioned: false }));
      const res = await t.request('POST', '/api/evaluations/llm/competitor_llm_function_call/evaluate', {
        authToken: t.creds.projectApiKey,
        body: { data: { output: 'Our product is great.' }, as_guardrail: true },
      });
      expect(res.headers.get('x-guardrail-passed')).toBe('true');
      expect(res.body[0]).toMatchObject({ status: 'processed', score: 0.1, passed: true });
      // langevals' default company and competitors.
      expect(systemOf(openai.requests[0])).toContain('LangWatch - We are providing an LLM observability and evaluation platform');
      expect(systemOf(openai.requests[0])).toContain('- OpenAI\n- Google\n- Microsoft');
    });

    it('skipped when input and output are empty', async () => {
      expect(await evaluate('llm/competitor_llm_function_call', { data: { input: '', output: null } })).toMatchObject({ status: 'skipped' });
      expect(openai.requests).toHaveLength(0);
    });
  });

  describe('llm/llm_category', () => {
    it('the categories become the label enum; label and reasoning come back', async () => {
      openai.queue(toolCallReply('evaluation', { reasoning: 'The user asks about a refund.', label: 'billing' }));
      const result = await evaluate('llm/llm_category', {
        data: { input: 'I want my money back', output: 'Sure', contexts: ['Refunds within 30 days.', ''] },
        settings: {
          prompt: 'Classify the support request',
          categories: [
            { name: 'billing', description: 'Payments and refunds' },
            { name: 'tech', description: 'Technical problems' },
          ],
        },
      });
      const [req] = openai.requests;
      expectCommonRequest(req);
      const tool = toolOf(req);
      expect(tool.name).toBe('evaluation');
      expect(tool.parameters.properties.label.enum).toEqual(['billing', 'tech']);
      expect(tool.parameters.required.sort()).toEqual(['label', 'reasoning']);
      expect(systemOf(req)).toBe('Classify the support request. Always output a valid json for the function call');
      expect(userOf(req)).toBe(
        '# Input\nI want my money back\n\n# Output\nSure\n\n# Contexts\n1. Refunds within 30 days.\n\n# Task\nClassify the support request\n\n# Categories\n- billing: Payments and refunds\n- tech: Technical problems',
      );
      expect(result).toMatchObject({ status: 'processed', label: 'billing', details: 'The user asks about a refund.', cost: { amount: expect.closeTo(COST_PER_CALL, 15) } });
      expect(result.score).toBeUndefined();
    });

    it('a label outside the categories is an InvalidProviderResponse error', async () => {
      openai.queue(toolCallReply('evaluation', { reasoning: 'x', label: 'weather' }));
      const result = await evaluate('llm/llm_category', { data: { input: 'hello' } });
      expect(result).toMatchObject({ status: 'error', error_type: 'InvalidProviderResponse', details: expect.stringContaining('evaluation') });
    });

    it('skipped with no content, and when the content is above max_tokens', async () => {
      expect(await evaluate('llm/llm_category', { data: { input: null, output: '', contexts: [] } })).toMatchObject({ status: 'skipped', details: expect.stringContaining('No content') });
      const tooLong = await evaluate('llm/llm_category', { data: { input: 'word '.repeat(500) }, settings: { max_tokens: 100 } });
      expect(tooLong).toMatchObject({ status: 'skipped', details: expect.stringMatching(/^Total tokens exceed the maximum of 100: \d+$/) });
      expect(openai.requests).toHaveLength(0);
    });
  });

  describe('llm/llm_score', () => {
    it('the custom prompt is the system message; score = final_score', async () => {
      openai.queue(toolCallReply('evaluation', { reasoning: 'Helpful: 0.8, polite: 0.9', final_score: 0.85 }));
      const result = await evaluate('llm/llm_score', { data: { input: 'How do I reset my password?', output: 'Click "Forgot password".' } });
      const [req] = openai.requests;
      expectCommonRequest(req);
      const tool = toolOf(req);
      expect(tool.name).toBe('evaluation');
      expect(tool.parameters.properties).toMatchObject({ reasoning: { type: 'string' }, final_score: { type: 'number' } });
      expect(systemOf(req)).toMatch(/^You are an LLM evaluator\. Please score from 0\.0 to 1\.0 .*\. Always output a valid json for the function call$/);
      expect(userOf(req)).toMatch(/^# Input\nHow do I reset my password\?\n\n# Output\nClick "Forgot password"\.\n\n# Task\nYou are an LLM evaluator/);
      expect(result).toMatchObject({ status: 'processed', score: 0.85, details: 'Helpful: 0.8, polite: 0.9', cost: { amount: expect.closeTo(COST_PER_CALL, 15) } });
    });

    it('another model from settings.model; a model not in the price table reports no cost', async () => {
      openai.queue(toolCallReply('evaluation', { reasoning: 'fine', final_score: 7 }, { prompt_tokens: 50, completion_tokens: 5 }, 'my-local-llama'));
      const result = await evaluate('llm/llm_score', { data: { output: 'x' }, settings: { model: 'openai/my-local-llama', prompt: 'Score from 0 to 10' } });
      expectCommonRequest(openai.requests[0], 'my-local-llama');
      expect(result).toMatchObject({ status: 'processed', score: 7, raw_response: { model: 'openai/my-local-llama', usage: { prompt_tokens: 50, completion_tokens: 5 } } });
      expect(result.cost).toBeUndefined();
    });

    it('a judge that answers text instead of calling the tool: InvalidProviderResponse', async () => {
      openai.queue(textReply('I think it is a 0.5'));
      expect(await evaluate('llm/llm_score', { data: { output: 'x' } })).toMatchObject({ status: 'error', error_type: 'InvalidProviderResponse' });
    });
  });

  describe('llm/off_topic', () => {
    it('allowed topics plus "other" are the intent enum; an allowed intent passes', async () => {
      openai.queue(toolCallReply('identify_intent', { intent: 'email_delete', confidence: 0.95 }));
      const result = await evaluate('llm/off_topic', {
        data: { input: 'delete the last email please' },
        settings: {
          allowed_topics: [
            { topic: 'email_query', description: 'Questions about emails' },
            { topic: 'email_delete', description: 'Delete an email' },
          ],
        },
      });
      const [req] = openai.requests;
      expectCommonRequest(req);
      const tool = toolOf(req);
      expect(tool.name).toBe('identify_intent');
      expect(tool.parameters.properties.intent.enum).toEqual(['email_query', 'email_delete', 'other']);
      expect(tool.parameters.properties.confidence.type).toBe('number');
      expect(req.body.max_tokens).toBe(1024);
      expect(systemOf(req)).toContain('- email_query: Questions about emails\n- email_delete: Delete an email');
      expect(userOf(req)).toBe('delete the last email please');
      expect(result).toMatchObject({
        status: 'processed',
        score: 0.95,
        passed: true,
        label: 'email_delete',
        details: 'Detected intent: email_delete',
        cost: { amount: expect.closeTo(COST_PER_CALL, 15) },
      });
    });

    it('"other" fails, and as a guardrail triggers', async () => {
      openai.queue(toolCallReply('identify_intent', { intent: 'other', confidence: 0.8 }));
      const res = await t.request('POST', '/api/evaluations/llm/off_topic/evaluate', {
        authToken: t.creds.projectApiKey,
        body: { data: { input: 'What is the weather in Paris?' }, as_guardrail: true },
      });
      expect(res.headers.get('x-guardrail-passed')).toBe('false');
      expect(res.body[0]).toMatchObject({ status: 'processed', passed: false, label: 'other', score: 0.8 });
      expect(toolOf(openai.requests[0]).parameters.properties.intent.enum).toEqual(['simple_chat', 'company', 'other']);
    });

    it('skipped when the input is empty', async () => {
      expect(await evaluate('llm/off_topic', { data: { input: '' } })).toMatchObject({ status: 'skipped', details: 'Input is empty.' });
      expect(await evaluate('llm/off_topic', { data: {} })).toMatchObject({ status: 'skipped' });
      expect(openai.requests).toHaveLength(0);
    });
  });

  describe('legacy/rag_faithfulness', () => {
    it('extracts statements, verifies each against the contexts; score = supported / total', async () => {
      openai.queue(
        toolCallReply('extract_statements', { statements: ['Paris is the capital of France.', 'Paris has 20 million inhabitants.'] }),
        toolCallReply('verify_statements', {
          verdicts: [
            { statement: 'Paris is the capital of France.', reason: 'Stated in the context.', verdict: 1 },
            { statement: 'Paris has 20 million inhabitants.', reason: 'The context says 2 million.', verdict: 0 },
          ],
        }),
      );
      const result = await evaluate('legacy/rag_faithfulness', {
        data: {
          output: 'Paris is the capital of France and has 20 million inhabitants.',
          contexts: ['Paris is the capital of France.', 'Paris has about 2 million inhabitants.'],
        },
      });
      expect(openai.requests).toHaveLength(2);
      const [extract, verify] = openai.requests;
      expectCommonRequest(extract);
      expect(toolOf(extract).name).toBe('extract_statements');
      expect(toolOf(extract).parameters.properties.statements).toMatchObject({ type: 'array', items: { type: 'string' } });
      expect(userOf(extract)).toBe('Answer:\nParis is the capital of France and has 20 million inhabitants.');
      expectCommonRequest(verify);
      const verifyTool = toolOf(verify);
      expect(verifyTool.name).toBe('verify_statements');
      expect(verifyTool.parameters.properties.verdicts.items.properties.verdict).toBeDefined();
      expect(userOf(verify)).toBe(
        'Context:\nParis is the capital of France.\nParis has about 2 million inhabitants.\n\nStatements:\n1. Paris is the capital of France.\n2. Paris has 20 million inhabitants.',
      );
      expect(result).toMatchObject({
        status: 'processed',
        score: 0.5,
        details: '1 of 2 statements are supported by the contexts. Not supported: "Paris has 20 million inhabitants." (The context says 2 million.)',
        cost: { currency: 'USD', amount: expect.closeTo(2 * COST_PER_CALL, 15) },
        raw_response: { usage: { calls: 2, prompt_tokens: 2000, completion_tokens: 400 } },
      });
      expect(result.passed).toBeUndefined();
    });

    it('a statement without a verdict counts as unsupported', async () => {
      openai.queue(
        toolCallReply('extract_statements', { statements: ['A.', 'B.', 'C.'] }),
        toolCallReply('verify_statements', { verdicts: [{ statement: 'A.', reason: 'yes', verdict: 1 }] }),
      );
      const result = await evaluate('legacy/rag_faithfulness', { data: { output: 'A. B. C.', contexts: ['A.'] } });
      expect(result.score).toBeCloseTo(1 / 3, 12);
    });

    it('no claims: skipped after one call; empty output or contexts: skipped without calls', async () => {
      openai.queue(toolCallReply('extract_statements', { statements: [] }));
      const noClaims = await evaluate('legacy/rag_faithfulness', { data: { output: 'Hello!', contexts: ['x'] } });
      expect(noClaims).toMatchObject({ status: 'skipped', details: expect.stringContaining('No claims'), cost: { amount: expect.closeTo(COST_PER_CALL, 15) } });
      expect(openai.requests).toHaveLength(1);
      expect(await evaluate('legacy/rag_faithfulness', { data: { output: '', contexts: ['x'] } })).toMatchObject({ status: 'skipped', details: expect.stringContaining('Output is empty') });
      expect(await evaluate('legacy/rag_faithfulness', { data: { output: 'x', contexts: ['', ' '] } })).toMatchObject({ status: 'skipped', details: expect.stringContaining('No contexts') });
      expect(openai.requests).toHaveLength(1);
    });
  });

  describe('rag/summarization_score', () => {
    it('key phrases -> questions -> answers from the summary, combined with conciseness', async () => {
      const contexts = ['Apple Inc. is a technology company based in Cupertino, California.', 'It was founded by Steve Jobs in 1976.'];
      const summary = 'Apple, a Cupertino tech company, was founded in 1976.';
      openai.queue(
        toolCallReply('extract_keyphrases', { keyphrases: ['Apple Inc.', 'Cupertino, California', 'Steve Jobs', '1976'] }),
        toolCallReply('generate_questions', {
          questions: ['Is Apple Inc. a technology company?', 'Is Apple Inc. based in Cupertino?', 'Was Apple founded by Steve Jobs?', 'Was Apple founded in 1976?'],
        }),
        toolCallReply('answer_questions', { answers: ['1', '1', '0', '1'] }),
      );
      const result = await evaluate('rag/summarization_score', { data: { output: summary, contexts } });
      expect(openai.requests).toHaveLength(3);
      const [keyphrases, questions, answers] = openai.requests;
      const text = contexts.join('\n');
      expect(toolOf(keyphrases).name).toBe('extract_keyphrases');
      expect(userOf(keyphrases)).toBe(`Text:\n${text}`);
      expect(toolOf(questions).name).toBe('generate_questions');
      expect(userOf(questions)).toBe(`Text:\n${text}\n\nKey phrases:\n- Apple Inc.\n- Cupertino, California\n- Steve Jobs\n- 1976`);
      expect(toolOf(answers).name).toBe('answer_questions');
      expect(toolOf(answers).parameters.properties.answers.items.enum).toEqual(['0', '1']);
      expect(userOf(answers)).toBe(
        `Summary:\n${summary}\n\nQuestions:\n1. Is Apple Inc. a technology company?\n2. Is Apple Inc. based in Cupertino?\n3. Was Apple founded by Steve Jobs?\n4. Was Apple founded in 1976?`,
      );
      for (const r of openai.requests) expectCommonRequest(r);

      const qa = 3 / 4;
      const conciseness = 1 - summary.length / (text.length + 1e-10);
      expect(result).toMatchObject({
        status: 'processed',
        score: expect.closeTo(0.5 * qa + 0.5 * conciseness, 12),
        cost: { amount: expect.closeTo(3 * COST_PER_CALL, 15) },
        raw_response: { qa_score: 0.75, conciseness_score: expect.closeTo(conciseness, 12) },
      });
      expect(result.details).toMatch(/^QA score: 0\.75 \(3 of 4 questions answered by the summary\); conciseness score: 0\.\d+; score = 0\.5 x QA \+ 0\.5 x conciseness\.$/);
    });

    it('a copy of the text answers everything but scores 0 on conciseness; missing answers count as 0', async () => {
      openai.queue(
        toolCallReply('extract_keyphrases', { keyphrases: ['x'] }),
        toolCallReply('generate_questions', { questions: ['q1?', 'q2?'] }),
        toolCallReply('answer_questions', { answers: ['1'] }),
      );
      const result = await evaluate('rag/summarization_score', { data: { output: 'same text', contexts: ['same text'] } });
      expect(result.score).toBeCloseTo(0.5 * 0.5 + 0.5 * 0, 9);
    });

    it('skipped when output or contexts are empty, or no key phrase is found', async () => {
      expect(await evaluate('rag/summarization_score', { data: { output: ' ', contexts: ['x'] } })).toMatchObject({ status: 'skipped' });
      expect(await evaluate('rag/summarization_score', { data: { output: 'x', contexts: [] } })).toMatchObject({ status: 'skipped' });
      expect(openai.requests).toHaveLength(0);
      openai.queue(toolCallReply('extract_keyphrases', { keyphrases: [] }));
      expect(await evaluate('rag/summarization_score', { data: { output: 'x', contexts: ['y'] } })).toMatchObject({ status: 'skipped', details: expect.stringContaining('no key phrases') });
    });
  });

  describe('provider failures', () => {
    it('HTTP 500 on every attempt: an error result after the retries, naming the status', async () => {
      openai.queue(errorReply(500), errorReply(500), errorReply(500));
      const result = await evaluate('llm/llm_score', { data: { output: 'x' } });
      expect(openai.requests).toHaveLength(3);
      expect(result).toMatchObject({ status: 'error', error_type: 'ProviderError', details: expect.stringContaining('HTTP 500 after 3 attempts') });
      expect(result.traceback.length).toBeGreaterThan(1);
    });

    it('a 500 then a good answer: retried and processed', async () => {
      openai.queue(errorReply(503), toolCallReply('identify_intent', { intent: 'company', confidence: 1 }));
      const result = await evaluate('llm/off_topic', { data: { input: 'What do you do?' } });
      expect(openai.requests).toHaveLength(2);
      expect(result).toMatchObject({ status: 'processed', passed: true });
    });

    it('HTTP 401 is not retried and is reported with the provider message', async () => {
      openai.queue(errorReply(401, 'Incorrect API key provided'));
      const result = await evaluate('llm/query_resolution', { data: { conversation: [{ role: 'user', content: 'hi' }] } });
      expect(openai.requests).toHaveLength(1);
      expect(result).toMatchObject({ status: 'error', error_type: 'ProviderError', details: expect.stringMatching(/HTTP 401.*Incorrect API key provided/) });
    });

    it('a failure in the second call of a multi-step judge is an error result', async () => {
      openai.queue(toolCallReply('extract_statements', { statements: ['A.'] }), errorReply(500), errorReply(500), errorReply(500));
      const result = await evaluate('legacy/rag_faithfulness', { data: { output: 'A.', contexts: ['A.'] } });
      expect(result).toMatchObject({ status: 'error', error_type: 'ProviderError' });
    });

    it('a provider that never answers: a Timeout error result at the deadline', async () => {
      t.app.services.evaluations.limits.timeoutMs = 400;
      openai.queue({ kind: 'hang' });
      const started = Date.now();
      const result = await evaluate('llm/competitor_llm_function_call', { data: { input: 'hello' } });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(result).toMatchObject({ status: 'error', error_type: 'Timeout', details: expect.stringContaining('did not finish within 0.4 s') });
    });

    it('a client that gives up cancels the provider call, and nothing is stored', async () => {
      openai.queue({ kind: 'hang' });
      const controller = new AbortController();
      const pending = fetch(`${t.baseUrl}/api/evaluations/llm/llm_score/evaluate`, {
        method: 'POST',
        headers: { 'x-auth-token': t.creds.projectApiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { output: 'x' }, trace_id: 'trace-abandoned' }),
        signal: controller.signal,
      });
      await waitFor(() => openai.requests.length === 1);
      controller.abort();
      await expect(pending).rejects.toThrow();
      // The server aborts its provider request: the fake sees its connection close.
      await waitFor(() => openai.openConnections() === 0);
      await new Promise((r) => setTimeout(r, 100));
      expect(await listTraceEvaluations(t.db, t.creds.project.id, 'trace-abandoned')).toEqual([]);
    });

    it('an unreachable provider: a ProviderError result', async () => {
      const gone = await startFakeServer();
      const url = gone.url;
      await gone.close();
      const app = await startApp(kind, { reopen: t, env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${url}/v1` } });
      try {
        app.app.services.evaluations.limits.maxRetries = 0;
        const res = await app.request('POST', '/api/evaluations/llm/llm_score/evaluate', { authToken: app.creds.projectApiKey, body: { data: { output: 'x' } } });
        expect(res.status).toBe(200);
        expect(res.body[0]).toMatchObject({ status: 'error', error_type: 'ProviderError', details: expect.stringContaining('could not be reached') });
      } finally {
        await app.close();
      }
    });
  });

  it('a judge result stored on a trace keeps its cost', async () => {
    openai.queue(toolCallReply('evaluation', { reasoning: 'good', final_score: 0.9 }));
    const result = await evaluate('llm/llm_score', { data: { output: 'x' }, trace_id: 'trace-judge', name: 'satisfaction' });
    const [stored] = await listTraceEvaluations(t.db, t.creds.project.id, 'trace-judge');
    expect(stored).toMatchObject({
      evaluation_id: result.evaluation_id,
      name: 'satisfaction',
      type: 'llm/llm_score',
      status: 'processed',
      score: 0.9,
      details: 'good',
      cost: { currency: 'USD', amount: expect.closeTo(COST_PER_CALL, 15) },
      error: null,
    });
  });
});
