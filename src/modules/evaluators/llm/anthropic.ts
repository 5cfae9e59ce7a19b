/**
 * Anthropic's Messages API, called directly (its AI SDK provider package is not a dependency):
 * a forced tool call for the judges, a plain completion for "Try it", with the retries,
 * deadline and error shapes of the OpenAI path (ProviderError with the HTTP status,
 * InvalidProviderResponseError for a 2xx answer without the tool call).
 */
import { z } from 'zod';
import { InvalidProviderResponseError, ProviderError } from '../errors.ts';
import type { EvaluatorContext } from '../types.ts';
import type { ChatParameters, JudgeCall, ProviderConfig, ToolCallEvent } from './provider.ts';

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

async function post(config: ProviderConfig, body: Record<string, unknown>, ctx: EvaluatorContext): Promise<MessagesAnswer> {
  const url = `${(config.baseUrl || DEFAULT_BASE_URL).replace(/\/+$/, '')}/v1/messages`;
  const where = (() => {
    try {
      const u = new URL(url);
      return u.origin + u.pathname;
    } catch {
      return 'unknown address';
    }
  })();
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
    const text = await res.text();
    if (res.ok) {
      try {
        return JSON.parse(text) as MessagesAnswer;
      } catch {
        throw new InvalidProviderResponseError(`the model provider (${where}) answered HTTP ${res.status} with a body that is not JSON`);
      }
    }
    let message = text.slice(0, 500);
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string } };
      if (parsed.error?.message) message = parsed.error.message.slice(0, 500);
    } catch {
      /* the text as it came */
    }
    last = new ProviderError(`the model provider (${where}) answered HTTP ${res.status}${attempt > 1 ? ` after ${attempt} attempts` : ''}: ${message}`, res.status);
    if (!RETRIED.has(res.status)) break;
    const wait = Number(res.headers.get('retry-after-ms') ?? Number(res.headers.get('retry-after') ?? 0) * 1000);
    if (attempt < attempts) await new Promise((r) => setTimeout(r, Number.isFinite(wait) && wait >= 0 ? Math.min(wait, 10_000) : 500 * attempt));
  }
  throw last ?? new ProviderError(`the model provider (${where}) could not be reached`);
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
 * evaluation service refuses them before calling.
 */
export async function anthropicChat(
  config: ProviderConfig,
  modelId: string,
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[],
  parameters: ChatParameters,
  ctx: EvaluatorContext,
): Promise<{ text: string; model: string | undefined; usage: AnthropicUsage; toolCalls: ToolCallEvent[]; finishReason: string }> {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  const p = parameters;
  const choice = p.tool_choice;
  const answer = await post(
    config,
    {
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
    },
    ctx,
  );
  const content = answer.content ?? [];
  const text = content.filter((c) => c.type === 'text').map((c) => c.text ?? '').join('');
  const toolCalls = content.filter((c) => c.type === 'tool_use').map((c) => ({ id: c.id ?? '', name: c.name ?? '', arguments: c.input }));
  const finishReason = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool-calls' }[answer.stop_reason ?? ''] ?? 'other';
  return { text, model: answer.model, usage: usageOf(answer), toolCalls, finishReason };
}
