/**
 * Anthropic's Messages API, called directly (its AI SDK provider package is not a dependency):
 * a forced tool call for the judges, a plain completion for "Try it", with the retries,
 * deadline and error shapes of the OpenAI path (ProviderError with the HTTP status,
 * InvalidProviderResponseError for a 2xx answer without the tool call).
 */
import { z } from 'zod';
import { retryAfterHeaders } from '../../../platform/retry-after.ts';
import { InvalidProviderResponseError, ProviderError } from '../errors.ts';
import type { EvaluatorContext } from '../types.ts';
import type { ChatEvent, ChatParameters, JudgeCall, ProviderConfig, ToolCallEvent } from './call-types.ts';

const DEFAULT_BASE_URL = 'https://api.anthropic.com';
const API_VERSION = '2023-06-01';
const DEFAULT_MAX_TOKENS = 1024;

interface MessagesAnswer {
  model?: string;
  stop_reason?: string;
  content?: Array<{ type: string; id?: string; text?: string; name?: string; input?: unknown }>;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number };
}

export interface AnthropicUsage {
  inputTokens: number;
  outputTokens: number;
  inputTokenDetails: { cacheReadTokens: number; noCacheTokens: undefined; cacheWriteTokens: undefined };
  outputTokenDetails: { reasoningTokens: undefined; textTokens: undefined };
}

function usageOf(answer: MessagesAnswer): AnthropicUsage {
  return {
    inputTokens: answer.usage?.input_tokens ?? 0,
    outputTokens: answer.usage?.output_tokens ?? 0,
    inputTokenDetails: { cacheReadTokens: answer.usage?.cache_read_input_tokens ?? 0, noCacheTokens: undefined, cacheWriteTokens: undefined },
    outputTokenDetails: { reasoningTokens: undefined, textTokens: undefined },
  };
}

const RETRIED = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

/** The Messages API's address without credentials or query, for error messages. */
function endpoint(config: ProviderConfig): { url: string; where: string } {
  const url = `${(config.baseUrl || DEFAULT_BASE_URL).replace(/\/+$/, '')}/v1/messages`;
  try {
    const u = new URL(url);
    return { url, where: u.origin + u.pathname };
  } catch {
    return { url, where: 'unknown address' };
  }
}

/**
 * POSTs to the Messages API with retries (only before an answer starts: a stream that fails
 * midway is not sent again) and answers the first 2xx response, its body unread.
 */
async function send(config: ProviderConfig, body: Record<string, unknown>, ctx: EvaluatorContext): Promise<Response> {
  const { url, where } = endpoint(config);
  const attempts = (ctx.maxRetries ?? 2) + 1;
  let last: ProviderError | null = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let res: Response;
    try {
      res = await ctx.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': config.apiKey, 'anthropic-version': API_VERSION },
        body: JSON.stringify(body),
        signal: ctx.signal,
      });
    } catch (err) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      last = new ProviderError(`the model provider (${where}) could not be reached: ${err instanceof Error ? err.message : String(err)}`, undefined, { cause: err });
      continue;
    }
    if (res.ok) return res;
    const text = await res.text();
    let message = text.slice(0, 500);
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string } };
      if (parsed.error?.message) message = parsed.error.message.slice(0, 500);
    } catch {
      /* the text as it came */
    }
    last = new ProviderError(`the model provider (${where}) answered HTTP ${res.status}${attempt > 1 ? ` after ${attempt} attempts` : ''}: ${message}`, res.status);
    if (!RETRIED.has(res.status)) break;
    // The service's wait when it names one (capped at 10 s), else none: the attempts are few.
    const wait = retryAfterHeaders(res.headers, Date.now()) ?? 0;
    if (attempt < attempts) await new Promise((r) => setTimeout(r, Math.min(wait, 10_000)));
  }
  throw last ?? new ProviderError(`the model provider (${where}) could not be reached`);
}

async function post(config: ProviderConfig, body: Record<string, unknown>, ctx: EvaluatorContext): Promise<MessagesAnswer> {
  const res = await send(config, body, ctx);
  const text = await res.text();
  try {
    return JSON.parse(text) as MessagesAnswer;
  } catch {
    throw new InvalidProviderResponseError(`the model provider (${endpoint(config).where}) answered HTTP ${res.status} with a body that is not JSON`);
  }
}

async function streamed(config: ProviderConfig, body: Record<string, unknown>, ctx: EvaluatorContext, onEvent: (event: ChatEvent) => void): Promise<MessagesAnswer> {
  try {
    return await readStream(await send(config, { ...body, stream: true }, ctx), endpoint(config).where, onEvent);
  } catch (err) {
    // A deadline is the runner's to report, as on the unstreamed path.
    throw ctx.signal?.aborted ? ctx.signal.reason : err;
  }
}

/** The `data:` payloads of a server-sent event stream, one per event, as they arrive. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = '';
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    buffered += text;
    let end: number;
    while ((end = buffered.search(/\r?\n\r?\n/)) !== -1) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) yield data;
    }
  }
}

/** One event of a streamed Messages answer (https://docs.anthropic.com/en/api/messages-streaming), the fields read here. */
interface StreamEvent {
  type: string;
  index?: number;
  message?: MessagesAnswer;
  content_block?: { type: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string };
  usage?: MessagesAnswer['usage'];
  error?: { type?: string; message?: string };
}

/**
 * Reads a streamed Messages answer, handing each piece of text to `onEvent` as it comes and
 * each tool call once its arguments are whole; answers what the unstreamed call would have.
 */
async function readStream(res: Response, where: string, onEvent: (event: ChatEvent) => void): Promise<MessagesAnswer> {
  const answer: MessagesAnswer & { content: NonNullable<MessagesAnswer['content']> } = { content: [] };
  const partialJson = new Map<number, string>();
  let stopped = false;
  if (!res.body) throw new InvalidProviderResponseError(`the model provider (${where}) answered a stream without a body`);
  for await (const data of sseData(res.body)) {
    if (data === '[DONE]') continue;
    let event: StreamEvent;
    try {
      event = JSON.parse(data) as StreamEvent;
    } catch {
      throw new InvalidProviderResponseError(`the model provider (${where}) sent a stream event that is not JSON`);
    }
    const index = event.index ?? 0;
    switch (event.type) {
      case 'message_start':
        answer.model = event.message?.model;
        answer.usage = { ...event.message?.usage };
        break;
      case 'content_block_start':
        answer.content[index] = { ...event.content_block, type: event.content_block?.type ?? 'text', ...(event.content_block?.type === 'text' ? { text: '' } : {}) };
        break;
      case 'content_block_delta': {
        const block = answer.content[index];
        if (!block) break;
        if (event.delta?.type === 'text_delta' && event.delta.text) {
          block.text = (block.text ?? '') + event.delta.text;
          onEvent({ type: 'text', text: event.delta.text });
        } else if (event.delta?.type === 'input_json_delta') {
          partialJson.set(index, (partialJson.get(index) ?? '') + (event.delta.partial_json ?? ''));
        }
        break;
      }
      case 'content_block_stop': {
        const block = answer.content[index];
        if (block?.type !== 'tool_use') break;
        const json = partialJson.get(index) ?? '';
        try {
          block.input = json ? JSON.parse(json) : {};
        } catch {
          throw new InvalidProviderResponseError(`the model called ${block.name ?? 'a tool'} with arguments that are not JSON`);
        }
        onEvent({ type: 'tool_call', id: block.id ?? '', name: block.name ?? '', arguments: block.input });
        break;
      }
      case 'message_delta':
        if (event.delta?.stop_reason) answer.stop_reason = event.delta.stop_reason;
        // Cumulative counts: the last one is the answer's.
        if (event.usage) answer.usage = { ...answer.usage, ...event.usage };
        break;
      case 'message_stop':
        stopped = true;
        break;
      case 'error':
        throw new ProviderError(`the model provider failed mid-answer: ${(event.error?.message ?? event.error?.type ?? 'unknown error').slice(0, 500)}`);
      default:
      // ping, and event types added later: nothing to keep.
    }
  }
  if (!stopped) throw new ProviderError(`the model provider (${where}) ended its stream before the answer was complete`);
  return answer;
}

/** A forced call of the judge's tool; its input as the model gave it (the caller validates it). */
export async function anthropicToolCall<T extends z.ZodType>(
  config: ProviderConfig,
  modelId: string,
  call: JudgeCall<T>,
  ctx: EvaluatorContext,
): Promise<{ input: unknown; usage: AnthropicUsage }> {
  const { name, description, input } = call.tool;
  const { $schema: _drop, ...schema } = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const answer = await post(
    config,
    {
      model: modelId,
      max_tokens: call.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
      temperature: Math.min(call.temperature ?? 0, 1),
      ...(call.system ? { system: call.system } : {}),
      messages: [{ role: 'user', content: call.prompt }],
      tools: [{ name, description, input_schema: schema }],
      tool_choice: { type: 'tool', name },
    },
    ctx,
  );
  const used = answer.content?.find((c) => c.type === 'tool_use' && c.name === name);
  if (!used) throw new InvalidProviderResponseError(`the judge model answered without calling the ${name} tool (stop reason: ${answer.stop_reason ?? 'unknown'})`);
  return { input: used.input, usage: usageOf(answer) };
}

/**
 * A completion with the caller's parameters and tools: system messages go into `system`, the
 * rest as the conversation. Seed and response formats have no Anthropic counterpart: the
 * evaluation service refuses them before calling. With `onEvent` the answer is streamed:
 * text as it comes, each tool call when its arguments are whole.
 */
export async function anthropicChat(
  config: ProviderConfig,
  modelId: string,
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[],
  parameters: ChatParameters,
  ctx: EvaluatorContext,
  onEvent?: (event: ChatEvent) => void,
): Promise<{ text: string; model: string | undefined; usage: AnthropicUsage; toolCalls: ToolCallEvent[]; finishReason: string }> {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  const p = parameters;
  const choice = p.tool_choice;
  const body = {
    model: modelId,
    max_tokens: p.max_tokens ?? DEFAULT_MAX_TOKENS,
    ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
    ...(p.top_p !== undefined ? { top_p: p.top_p } : {}),
    ...(p.stop !== undefined ? { stop_sequences: typeof p.stop === 'string' ? [p.stop] : p.stop } : {}),
    ...(system ? { system } : {}),
    messages: messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content })),
    ...(p.tools?.length
      ? {
          tools: p.tools.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters ?? { type: 'object', properties: {} } })),
          ...(choice === undefined
            ? {}
            : { tool_choice: typeof choice === 'object' ? { type: 'tool', name: choice.function.name } : { type: choice === 'required' ? 'any' : choice } }),
        }
      : {}),
  };
  const answer = onEvent ? await streamed(config, body, ctx, onEvent) : await post(config, body, ctx);
  const content = answer.content ?? [];
  const text = content.filter((c) => c.type === 'text').map((c) => c.text ?? '').join('');
  const toolCalls = content.filter((c) => c.type === 'tool_use').map((c) => ({ id: c.id ?? '', name: c.name ?? '', arguments: c.input }));
  const finishReason = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool-calls' }[answer.stop_reason ?? ''] ?? 'other';
  return { text, model: answer.model, usage: usageOf(answer), toolCalls, finishReason };
}
