/**
 * Vercel AI SDK telemetry (ai.*), as `ai` 3.3–6 emits it: the outer call spans
 * (ai.generateText, ai.streamText, ai.generateObject, ...) wrap one provider call
 * span per step (ai.generateText.doGenerate, ai.streamText.doStream, ...) and one
 * ai.toolCall span per executed tool. Only the provider calls are typed `llm`: the
 * outer spans repeat the summed usage of their steps.
 */
import { isRecord, parseJson, str, table, type SpanMapping } from '../mapping-context.ts';
import { chatPayload, normalizeMessages, normalizeToolCall, toPayload } from '../messages.ts';
import type { ChatMessage, SpanType } from '../types.ts';
import { applyMetadataEntry } from './trace-metadata.ts';

const SETTINGS_PREFIX = 'ai.settings.';
const METADATA_PREFIX = 'ai.telemetry.metadata.';

const SETTING_NAMES = table<string>({
  maxOutputTokens: 'max_tokens',
  maxTokens: 'max_tokens',
  topP: 'top_p',
  topK: 'top_k',
  frequencyPenalty: 'frequency_penalty',
  presencePenalty: 'presence_penalty',
  stopSequences: 'stop_sequences',
  maxRetries: 'max_retries',
  maxSteps: 'max_steps',
});

/** The SDK's call functions: their spans wrap the provider calls, tool calls and steps. */
const CALL_OPERATIONS = new Set([
  'ai.generateText', 'ai.streamText', 'ai.generateObject', 'ai.streamObject', 'ai.embed', 'ai.embedMany',
  'ai.rerank', 'ai.generateImage', 'ai.generateSpeech', 'ai.transcribe',
]);

function operationType(operationId: string): SpanType | null {
  if (operationId === 'ai.toolCall') return 'tool';
  if (CALL_OPERATIONS.has(operationId)) return 'chain';
  const dot = operationId.lastIndexOf('.');
  if (dot <= 0 || !CALL_OPERATIONS.has(operationId.slice(0, dot))) return null;
  const step = operationId.slice(dot + 1);
  if (step === 'doGenerate' || step === 'doStream') return 'llm';
  if (step === 'doEmbed') return 'embedding';
  if (step === 'doRerank') return 'retriever';
  return null;
}

/** `openai.chat`, `openai.responses`, `anthropic.messages` -> the provider itself. */
function providerName(provider: string): string {
  const dot = provider.indexOf('.');
  return dot > 0 ? provider.slice(0, dot) : provider;
}

export function mapVercelAi(ctx: SpanMapping): void {
  const a = ctx.attrs;
  const declared = str(a.get('ai.operationId'));
  // Before ai.operationId existed the span name was the operation; only known names count.
  const operationId = declared ?? ctx.raw.name;
  const type = operationId === null ? null : operationType(operationId);
  if (operationId !== null && type !== null) {
    ctx.declareType(type);
    if (declared !== null) a.delete('ai.operationId');
    const opName = str(a.get('operation.name'));
    if (opName !== null && opName.startsWith(operationId)) a.delete('operation.name');
  }

  const provider = str(a.get('ai.model.provider'));
  if (provider !== null) {
    ctx.fillVendor('ai.model.provider', providerName);
    // Provider-call spans repeat the raw provider id as gen_ai.system.
    if (a.get('gen_ai.system') === provider) a.delete('gen_ai.system');
  }
  ctx.fillModel('ai.response.model');
  ctx.fillModel('ai.model.id');

  ctx.fillMetric('prompt_tokens', 'ai.usage.inputTokens');
  ctx.fillMetric('prompt_tokens', 'ai.usage.promptTokens');
  ctx.fillMetric('prompt_tokens', 'ai.usage.tokens');
  ctx.fillMetric('completion_tokens', 'ai.usage.outputTokens');
  ctx.fillMetric('completion_tokens', 'ai.usage.completionTokens');
  ctx.fillMetric('cached_input_tokens', 'ai.usage.cachedInputTokens');
  ctx.fillMetric('cached_input_tokens', 'ai.usage.inputTokenDetails.cacheReadTokens');
  ctx.fillMetric('reasoning_tokens', 'ai.usage.reasoningTokens');
  ctx.fillMetric('reasoning_tokens', 'ai.usage.outputTokenDetails.reasoningTokens');

  const settings = ctx.bucket(SETTINGS_PREFIX);
  if (settings) {
    for (const key of settings) {
      const name = key.slice(SETTINGS_PREFIX.length);
      ctx.fillParam(SETTING_NAMES.get(name) ?? name, key);
    }
  }
  const metadata = ctx.bucket(METADATA_PREFIX);
  if (metadata) {
    for (const key of metadata) {
      applyMetadataEntry(ctx.hints, key.slice(METADATA_PREFIX.length), a.get(key));
      a.delete(key);
    }
  }

  mapInput(ctx);
  mapOutput(ctx);

  ctx.setFirstTokenAfter('ai.response.msToFirstChunk', 1);
  ctx.setFirstTokenAfter('ai.stream.msToFirstChunk', 1);
}

function mapInput(ctx: SpanMapping): void {
  const a = ctx.attrs;
  // Provider-call spans: the exact prompt the model saw, in the SDK's message format.
  const messages = a.get('ai.prompt.messages');
  if (messages !== undefined) ctx.fillInput(chatPayload(normalizeMessages(messages, 'user')), 'ai.prompt.messages');

  // Outer spans: the call's arguments, {system?, prompt?, messages?}.
  const prompt = a.get('ai.prompt');
  if (prompt !== undefined && ctx.input === null) {
    const parsed = parseJson(prompt);
    if (isRecord(parsed)) {
      const list: ChatMessage[] = [];
      if (typeof parsed.system === 'string') list.push({ role: 'system', content: parsed.system });
      const body = parsed.messages ?? parsed.prompt;
      const rest = typeof body === 'string' ? [{ role: 'user', content: body }] : body === undefined ? [] : normalizeMessages(body, 'user');
      if (rest !== null) ctx.fillInput(chatPayload([...list, ...rest]), 'ai.prompt');
    } else {
      ctx.fillInput(toPayload(prompt), 'ai.prompt');
    }
  }

  for (const key of ['ai.toolCall.args', 'ai.value', 'ai.values']) {
    if (a.has(key)) ctx.fillInput(toPayload(a.get(key)), key);
  }
}

function mapOutput(ctx: SpanMapping): void {
  const a = ctx.attrs;
  const textKey = a.has('ai.response.text') ? 'ai.response.text' : a.has('ai.result.text') ? 'ai.result.text' : null;
  const callsKey = a.has('ai.response.toolCalls')
    ? 'ai.response.toolCalls'
    : a.has('ai.result.toolCalls')
      ? 'ai.result.toolCalls'
      : null;
  if (textKey !== null || callsKey !== null) {
    const text = textKey === null ? null : a.get(textKey);
    const rawCalls = callsKey === null ? undefined : a.get(callsKey);
    const calls = typeof rawCalls === 'string' ? parseJson(rawCalls) : rawCalls;
    if ((text === null || typeof text === 'string') && (calls === undefined || Array.isArray(calls))) {
      const message: ChatMessage = { role: 'assistant', content: text === null ? null : text };
      if (Array.isArray(calls) && calls.length > 0) message.tool_calls = calls.map(normalizeToolCall);
      const keys = [textKey, callsKey].filter((k): k is string => k !== null);
      ctx.fillOutput(chatPayload([message]), ...keys);
    }
  }
  for (const key of ['ai.response.object', 'ai.result.object', 'ai.toolCall.result']) {
    if (a.has(key)) ctx.fillOutput(toPayload(a.get(key)), key);
  }
}
