/**
 * Loopback stand-ins for the providers the evaluators call: an OpenAI-compatible chat
 * completions server and an Azure AI Content Safety Prompt Shields server. Each records the
 * requests it got and answers from a script the test writes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export type Reply =
  | { kind: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  /** Never answers (until the server closes): a provider that times out. */
  | { kind: 'hang' }
  /**
   * A server-sent event stream: each chunk as a `data:` event, `gapMs` apart, then `data: [DONE]`
   * (OpenAI's form). `named`: each event also names itself (`event:` its chunk's `type`) and
   * no [DONE] follows (Anthropic's form).
   */
  | { kind: 'sse'; chunks: unknown[]; gapMs?: number; named?: boolean };

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** Answers for the next requests, in order; when none is queued, `fallback` answers. */
  queue(...replies: Reply[]): void;
  fallback: (req: RecordedRequest) => Reply;
  /** Requests still waiting for an answer ('hang' replies whose client has not gone away). */
  openConnections(): number;
  close(): Promise<void>;
}

export async function startFakeServer(): Promise<FakeServer> {
  const queued: Reply[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        /* keep the text */
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      fake.requests.push(recorded);
      const reply = queued.shift() ?? fake.fallback(recorded);
      if (reply.kind === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (reply.kind === 'sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const write = (i: number) => {
          if (i === reply.chunks.length) return void res.end(reply.named ? '' : 'data: [DONE]\n\n');
          const chunk = reply.chunks[i] as { type?: string };
          res.write(`${reply.named ? `event: ${chunk.type}\n` : ''}data: ${JSON.stringify(chunk)}\n\n`);
          setTimeout(() => write(i + 1), reply.gapMs ?? 0);
        };
        write(0);
        return;
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(JSON.stringify(reply.body));
    });
  });
  // Node closes a keep-alive socket idle for 5 s; a client that sends on it just then gets a
  // reset ("Connection error." with retries off). A busy machine can idle that long between
  // calls, so the fake keeps sockets until it closes.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeServer = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    queue: (...replies) => queued.push(...replies),
    fallback: () => ({ kind: 'json', status: 500, body: { error: { message: 'no reply scripted for this request' } } }),
    openConnections: () => hanging.size,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** A chat completion whose assistant message calls `name` with `args`. */
export function toolCallReply(name: string, args: unknown, usage: Usage = { prompt_tokens: 1000, completion_tokens: 200 }, model = 'gpt-4o-mini'): Reply {
  return {
    kind: 'json',
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(args) } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/** A chat completion with plain text and no tool call. */
export function textReply(text: string): Reply {
  return {
    kind: 'json',
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/** An OpenAI-style error; `retry-after-ms: 0` keeps the SDK's retries instant. */
export function errorReply(status: number, message = 'The server had an error while processing your request.'): Reply {
  return {
    kind: 'json',
    status,
    headers: { 'retry-after-ms': '0' },
    body: { error: { message, type: 'server_error', param: null, code: null } },
  };
}

export function shieldReply(attackDetected: boolean): Reply {
  return { kind: 'json', body: { userPromptAnalysis: { attackDetected }, documentsAnalysis: [] } };
}

/** A streamed chat completion as OpenAI sends one: a role chunk, `pieces` of text, the finish, then the usage. */
export function streamReply(pieces: string[], o: { usage?: Usage; model?: string; gapMs?: number } = {}): Reply {
  const model = o.model ?? 'gpt-4o-mini-2024-07-18';
  const usage = o.usage ?? { prompt_tokens: 1000, completion_tokens: 40 };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id: 'chatcmpl-stream', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices, ...extra });
  return {
    kind: 'sse',
    gapMs: o.gapMs ?? 20,
    chunks: [
      chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
      ...pieces.map((content) => chunk([{ index: 0, delta: { content }, finish_reason: null }])),
      chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
      chunk([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
    ],
  };
}

/**
 * A streamed Anthropic Messages answer: `pieces` of text, then, if given, a call of `tool`
 * whose JSON arguments arrive in two halves. `cut`: the stream stops before message_stop.
 */
export function anthropicStreamReply(pieces: string[], o: { tool?: { id: string; name: string; input: unknown }; usage?: { input_tokens: number; output_tokens: number }; gapMs?: number; cut?: boolean } = {}): Reply {
  const usage = o.usage ?? { input_tokens: 40, output_tokens: 4 };
  const json = o.tool ? JSON.stringify(o.tool.input) : '';
  const half = Math.floor(json.length / 2);
  const chunks = [
    { type: 'message_start', message: { id: 'msg_s', type: 'message', role: 'assistant', model: 'claude-3-5-haiku-20241022', content: [], stop_reason: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'ping' },
    ...pieces.map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    { type: 'content_block_stop', index: 0 },
    ...(o.tool
      ? [
          { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: o.tool.id, name: o.tool.name, input: {} } },
          { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } },
          { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: json.slice(half) } },
          { type: 'content_block_stop', index: 1 },
        ]
      : []),
    { type: 'message_delta', delta: { stop_reason: o.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
    ...(o.cut ? [] : [{ type: 'message_stop' }]),
  ];
  return { kind: 'sse', named: true, gapMs: o.gapMs ?? 10, chunks };
}

/** A streamed chat completion calling `name`, its JSON arguments arriving in `argumentPieces`. */
export function streamToolCallReply(name: string, argumentPieces: string[], o: { usage?: Usage; gapMs?: number } = {}): Reply {
  const usage = o.usage ?? { prompt_tokens: 500, completion_tokens: 12 };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini-2024-07-18', choices, ...extra });
  return {
    kind: 'sse',
    gapMs: o.gapMs ?? 10,
    chunks: [
      chunk([{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_7', type: 'function', function: { name, arguments: '' } }] }, finish_reason: null }]),
      ...argumentPieces.map((piece) => chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] }, finish_reason: null }])),
      chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
      chunk([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
    ],
  };
}

/** OpenAI's answer to POST /embeddings: one embedding per input, in order. */
export function embeddingsReply(vectors: number[][], model = 'text-embedding-3-small'): Reply {
  return {
    kind: 'json',
    body: {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model,
      usage: { prompt_tokens: 8 * vectors.length, total_tokens: 8 * vectors.length },
    },
  };
}
