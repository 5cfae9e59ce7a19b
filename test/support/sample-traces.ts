/**
 * Collector bodies (POST /api/collector) of realistic traces, shared by the browser tests,
 * the bench and screenshots: an agent run with a conversation, tool calls, retrieval and an
 * error; plain traces for a long list; and a trace with thousands of spans.
 */

export interface CollectorBody {
  trace_id: string;
  spans: Record<string, unknown>[];
  metadata?: Record<string, unknown>;
}

const text = (value: string) => ({ type: 'text', value });

/** An agent answering a support question: system prompt, tool call, tool result, answer. */
export function agentTrace(traceId: string, now: number, options: { question?: string; userId?: string; threadId?: string; labels?: string[]; failTool?: boolean } = {}): CollectorBody {
  const question = options.question ?? 'Where is my parcel 4417? It was due on Monday.';
  const t0 = now - 4200;
  const answer = 'Your parcel 4417 left the Leipzig hub this morning and arrives tomorrow before noon.';
  return {
    trace_id: traceId,
    metadata: {
      user_id: options.userId ?? 'customer-829',
      thread_id: options.threadId ?? 'thread-parcel-4417',
      customer_id: 'acme-retail',
      labels: options.labels ?? ['support', 'production'],
      environment: 'production',
      app_version: '2.14.1',
    },
    spans: [
      {
        span_id: `${traceId}-agent`,
        type: 'agent',
        name: 'support agent',
        input: text(question),
        output: text(answer),
        timestamps: { started_at: t0, finished_at: now },
        attributes: { 'service.version': '2.14.1', 'agent.max_steps': 6 },
      },
      {
        span_id: `${traceId}-retrieve`,
        parent_id: `${traceId}-agent`,
        type: 'retriever',
        name: 'search help center',
        input: text(question),
        output: { type: 'json', value: [{ id: 'kb-12', title: 'Tracking a parcel', score: 0.82 }, { id: 'kb-40', title: 'Late deliveries', score: 0.74 }] },
        timestamps: { started_at: t0 + 40, finished_at: t0 + 310 },
        attributes: { 'retrieval.top_k': 2, 'db.system': 'pgvector' },
      },
      {
        span_id: `${traceId}-llm1`,
        parent_id: `${traceId}-agent`,
        type: 'llm',
        name: 'plan',
        model: 'gpt-4o-mini',
        vendor: 'openai',
        params: { temperature: 0.2, max_tokens: 512, stream: true },
        input: {
          type: 'chat_messages',
          value: [
            { role: 'system', content: 'You are the support assistant of Acme Retail. Be brief and precise. Use tools to look up orders.' },
            { role: 'user', content: question },
          ],
        },
        output: {
          type: 'chat_messages',
          value: [
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_7Qk2', type: 'function', function: { name: 'track_parcel', arguments: '{"parcel_id":"4417","carrier":"DHL"}' } }],
            },
          ],
        },
        metrics: { prompt_tokens: 1240, completion_tokens: 38, cached_input_tokens: 1024, reasoning_tokens: 12 },
        timestamps: { started_at: t0 + 320, first_token_at: t0 + 610, finished_at: t0 + 1490 },
        attributes: { 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.response.id': 'chatcmpl-9x81', 'gen_ai.response.finish_reasons': ['tool_calls'] },
      },
      {
        span_id: `${traceId}-tool`,
        parent_id: `${traceId}-agent`,
        type: 'tool',
        name: 'track_parcel',
        input: { type: 'json', value: { parcel_id: '4417', carrier: 'DHL' } },
        output: options.failTool ? null : { type: 'json', value: { status: 'in_transit', hub: 'Leipzig', eta: 'tomorrow 12:00' } },
        error: options.failTool
          ? { message: 'TimeoutError: carrier API did not answer within 3 s', stacktrace: ['TimeoutError: carrier API did not answer within 3 s', '    at trackParcel (tools/track.ts:41:11)', '    at async runTool (agent/loop.ts:88:20)'] }
          : null,
        timestamps: { started_at: t0 + 1500, finished_at: t0 + 2300 },
        attributes: { 'http.method': 'GET', 'http.url': 'https://carrier.example/track/4417', 'http.status_code': options.failTool ? 504 : 200 },
      },
      {
        span_id: `${traceId}-llm2`,
        parent_id: `${traceId}-agent`,
        type: 'llm',
        name: 'answer',
        model: 'gpt-4o-mini',
        vendor: 'openai',
        params: { temperature: 0.2, max_tokens: 512, stream: true },
        input: {
          type: 'chat_messages',
          value: [
            { role: 'system', content: 'You are the support assistant of Acme Retail. Be brief and precise. Use tools to look up orders.' },
            { role: 'user', content: question },
            { role: 'assistant', content: null, tool_calls: [{ id: 'call_7Qk2', type: 'function', function: { name: 'track_parcel', arguments: '{"parcel_id":"4417","carrier":"DHL"}' } }] },
            { role: 'tool', tool_call_id: 'call_7Qk2', content: '{"status":"in_transit","hub":"Leipzig","eta":"tomorrow 12:00"}' },
          ],
        },
        output: { type: 'chat_messages', value: [{ role: 'assistant', content: answer }] },
        metrics: { prompt_tokens: 1410, completion_tokens: 31 },
        timestamps: { started_at: t0 + 2310, first_token_at: t0 + 2700, finished_at: now - 30 },
        attributes: { 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.response.finish_reasons': ['stop'] },
      },
    ],
  };
}

const QUESTIONS = [
  'How do I reset my password?',
  'Can I change the delivery address of order 5521?',
  'Which plans include SSO?',
  'Summarize this contract clause about termination.',
  'Translate "good morning" to Japanese.',
  'Why was my card declined?',
  'What is the refund policy for digital goods?',
  'Write a haiku about observability.',
];

/** A one- or two-span trace, varied by its number (user, model, labels, errors). */
export function simpleTrace(traceId: string, startedAt: number, n: number): CollectorBody {
  const q = QUESTIONS[n % QUESTIONS.length];
  const model = ['gpt-4o-mini', 'gpt-4o', 'claude-3-5-sonnet-20241022'][n % 3];
  const ms = 300 + ((n * 7919) % 4000);
  const failed = n % 17 === 0;
  return {
    trace_id: traceId,
    metadata: { user_id: `user-${n % 23}`, thread_id: `thread-${n % 41}`, labels: n % 5 === 0 ? ['beta'] : ['production'] },
    spans: [
      {
        span_id: `${traceId}-llm`,
        type: 'llm',
        name: 'chat',
        model,
        input: { type: 'chat_messages', value: [{ role: 'user', content: `${q} (request ${n})` }] },
        output: failed ? null : { type: 'chat_messages', value: [{ role: 'assistant', content: `Here is what I found for request ${n}: …` }] },
        error: failed ? { message: 'RateLimitError: 429 Too Many Requests', stacktrace: ['RateLimitError: 429', '    at call (llm.ts:10:5)'] } : null,
        metrics: { prompt_tokens: 40 + (n % 300), completion_tokens: failed ? 0 : 20 + (n % 120) },
        timestamps: { started_at: startedAt, finished_at: startedAt + ms },
      },
    ],
  };
}

/**
 * A trace of `count` spans: a root, then groups of ten under "step" spans, each group an
 * LLM call and tools, so the tree is several levels deep and the waterfall is busy.
 */
export function bigTrace(traceId: string, now: number, count: number): CollectorBody {
  const t0 = now - count * 2 - 1000;
  const spans: Record<string, unknown>[] = [
    { span_id: 'root', type: 'agent', name: 'batch agent', input: text('Process the nightly batch'), output: text('Done'), timestamps: { started_at: t0, finished_at: t0 + count * 2 + 500 } },
  ];
  let step = '';
  for (let i = 1; i < count; i++) {
    const start = t0 + i * 2;
    if (i % 10 === 1) {
      step = `step-${i}`;
      spans.push({ span_id: step, parent_id: 'root', type: 'chain', name: `step ${Math.ceil(i / 10)}`, timestamps: { started_at: start, finished_at: start + 19 } });
      continue;
    }
    const llm = i % 10 === 2;
    spans.push({
      span_id: `s-${i}`,
      parent_id: step,
      type: llm ? 'llm' : 'tool',
      name: llm ? 'decide' : `tool ${i % 10}`,
      ...(llm ? { model: 'gpt-4o-mini', metrics: { prompt_tokens: 120, completion_tokens: 14 } } : {}),
      input: llm ? { type: 'chat_messages', value: [{ role: 'user', content: `Item ${i}: what next?` }] } : { type: 'json', value: { item: i } },
      output: llm ? { type: 'chat_messages', value: [{ role: 'assistant', content: `Call tool for item ${i}` }] } : { type: 'json', value: { ok: true } },
      ...(i % 997 === 0 ? { error: { message: `tool failed on item ${i}`, stacktrace: ['Error: failed', '    at tool (t.ts:1:1)'] } } : {}),
      timestamps: { started_at: start, finished_at: start + (llm ? 6 : 1) },
    });
  }
  return { trace_id: traceId, metadata: { user_id: 'batch-runner', labels: ['batch'] }, spans };
}

const CONVERSATION: [string, string][] = [
  ['Hi, my order 5521 has not arrived yet.', 'Sorry to hear that. Order 5521 shipped on Monday with DHL; the tracking shows it in the Leipzig hub.'],
  ['When will it get here?', 'The carrier expects to deliver it tomorrow before noon.'],
  ['Can I change the delivery address to my office?', 'Yes. Which address should it go to? I can redirect it while it is still at the hub.'],
  ['Acme Retail, 14 Harbour Street, Hamburg.', 'Done: the parcel is redirected to Acme Retail, 14 Harbour Street, Hamburg. You will get a new tracking e-mail.'],
  ['Will that delay it?', 'Usually by half a day at most; the new estimate is tomorrow afternoon.'],
  ['OK. And can I return one of the items?', 'Of course. Returns are free within 30 days; I have e-mailed you a return label for the item you choose.'],
  ['Thanks, that is all.', 'You are welcome. Have a good day!'],
];

/**
 * One turn of a support conversation (a thread): an agent span with an LLM call under it,
 * the n-th question and answer of a scripted chat (cycling), by one user; `failed` turns end
 * in an error without an answer.
 */
export function threadTurn(traceId: string, at: number, n: number, options: { threadId: string; userId?: string; failed?: boolean }): CollectorBody {
  const [question, answer] = CONVERSATION[n % CONVERSATION.length];
  const ms = 700 + ((n * 131) % 1800);
  return {
    trace_id: traceId,
    metadata: { user_id: options.userId ?? 'customer-829', thread_id: options.threadId, labels: ['support'], environment: 'production' },
    spans: [
      {
        span_id: `${traceId}-agent`,
        type: 'agent',
        name: 'support agent',
        input: text(question),
        output: options.failed ? null : text(answer),
        ...(options.failed ? { error: { message: 'RateLimitError: 429 Too Many Requests', stacktrace: ['RateLimitError: 429'] } } : {}),
        timestamps: { started_at: at, finished_at: at + ms },
      },
      {
        span_id: `${traceId}-llm`,
        parent_id: `${traceId}-agent`,
        type: 'llm',
        name: 'answer',
        model: 'gpt-4o-mini',
        input: { type: 'chat_messages', value: [{ role: 'user', content: question }] },
        output: options.failed ? null : { type: 'chat_messages', value: [{ role: 'assistant', content: answer }] },
        metrics: { prompt_tokens: 300 + n * 40, completion_tokens: 30 + (n % 5) * 9 },
        timestamps: { started_at: at + 50, finished_at: at + ms - 20 },
      },
    ],
  };
}
