/**
 * OpenTelemetry GenAI semantic conventions (gen_ai.*): the current attribute form
 * (gen_ai.input.messages / output.messages / system_instructions with typed parts),
 * the older gen_ai.prompt / gen_ai.completion attributes and usage names, and the
 * older event form (gen_ai.{system,user,assistant,tool}.message, gen_ai.choice,
 * gen_ai.content.prompt/completion, gen_ai.client.inference.operation.details).
 */
import { int, isRecord, parseJson, SpanMapping, str, table, type SpanEvent } from '../mapping-context.ts';
import { chatPayload, normalizeMessages, partsToText, toPayload } from '../messages.ts';
import type { ChatMessage, SpanPayload, SpanType } from '../types.ts';

const OPERATION_TYPES = table<SpanType>({
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  embeddings: 'embedding',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
  invoke_workflow: 'workflow',
  retrieval: 'retriever',
});

/** gen_ai.request.<name> -> params key, where the spec's name is not the one people search for. */
const PARAM_NAMES = table<string>({
  'choice.count': 'n',
});

const REQUEST_PREFIX = 'gen_ai.request.';

export function mapGenAi(ctx: SpanMapping): void {
  const a = ctx.attrs;
  const operation = str(a.get('gen_ai.operation.name'));
  if (operation !== null) ctx.suggestType(OPERATION_TYPES.get(operation));

  ctx.fillVendor('gen_ai.provider.name');
  ctx.fillVendor('gen_ai.system');
  ctx.fillModel('gen_ai.response.model');
  ctx.fillModel('gen_ai.request.model');

  const requestKeys = ctx.bucket(REQUEST_PREFIX);
  if (requestKeys) {
    for (const key of requestKeys) {
      if (key === 'gen_ai.request.model') continue;
      const name = key.slice(REQUEST_PREFIX.length);
      ctx.fillParam(PARAM_NAMES.get(name) ?? name, key);
    }
  }

  ctx.fillMetric('prompt_tokens', 'gen_ai.usage.input_tokens');
  ctx.fillMetric('prompt_tokens', 'gen_ai.usage.prompt_tokens');
  ctx.fillMetric('completion_tokens', 'gen_ai.usage.output_tokens');
  ctx.fillMetric('completion_tokens', 'gen_ai.usage.completion_tokens');
  ctx.fillMetric('cached_input_tokens', 'gen_ai.usage.cache_read.input_tokens');
  ctx.fillMetric('cached_input_tokens', 'gen_ai.usage.cache_read_input_tokens');
  ctx.fillMetric('reasoning_tokens', 'gen_ai.usage.reasoning.output_tokens');
  ctx.fillMetric('reasoning_tokens', 'gen_ai.usage.reasoning_tokens');

  mapMessageAttributes(ctx);

  // execute_tool spans carry the call itself.
  if (a.has('gen_ai.tool.call.arguments')) {
    ctx.fillInput(toPayload(a.get('gen_ai.tool.call.arguments')), 'gen_ai.tool.call.arguments');
  }
  if (a.has('gen_ai.tool.call.result')) {
    ctx.fillOutput(toPayload(a.get('gen_ai.tool.call.result')), 'gen_ai.tool.call.result');
  }

  // Semantic-convention durations are in seconds (the AI SDK 7's @ai-sdk/otel writes the
  // client one, OpenLLMetry's Bedrock instrumentation the server one).
  ctx.setFirstTokenAfter('gen_ai.client.operation.time_to_first_chunk', 1000);
  ctx.setFirstTokenAfter('gen_ai.response.time_to_first_chunk', 1000);
  ctx.setFirstTokenAfter('gen_ai.server.time_to_first_token', 1000);
}

function withInstructions(messages: ChatMessage[], instructions: unknown): { messages: ChatMessage[]; used: boolean } {
  if (instructions === undefined) return { messages, used: false };
  const text = partsToText(instructions);
  if (text === null) return { messages, used: false };
  return { messages: [{ role: 'system', content: text }, ...messages], used: true };
}

function mapMessageAttributes(ctx: SpanMapping): void {
  const a = ctx.attrs;
  const input = a.get('gen_ai.input.messages');
  const instructions = a.get('gen_ai.system_instructions');
  if (input !== undefined || instructions !== undefined) {
    const messages = input === undefined ? [] : normalizeMessages(input, 'user');
    if (messages !== null) {
      const merged = withInstructions(messages, instructions);
      if (merged.messages.length > 0 && ctx.fillInput(chatPayload(merged.messages), 'gen_ai.input.messages')) {
        if (merged.used) a.delete('gen_ai.system_instructions');
      }
    }
  }
  const output = a.get('gen_ai.output.messages');
  if (output !== undefined) {
    ctx.fillOutput(chatPayload(normalizeMessages(output, 'assistant')), 'gen_ai.output.messages');
  }

  // Older single-attribute forms (exact keys; gen_ai.prompt.N.* is OpenLLMetry's).
  const prompt = a.get('gen_ai.prompt');
  if (prompt !== undefined && ctx.input === null) {
    const messages = typeof prompt === 'string' || Array.isArray(prompt) ? normalizeMessages(prompt, 'user') : null;
    ctx.fillInput(messages !== null ? chatPayload(messages) : toPayload(prompt), 'gen_ai.prompt');
  }
  const completion = a.get('gen_ai.completion');
  if (completion !== undefined && ctx.output === null) {
    ctx.fillOutput(completionPayload(completion), 'gen_ai.completion');
  }
}

/** gen_ai.completion: messages, a `{text, finish_reason}` object, or plain text. */
function completionPayload(value: unknown) {
  const parsed = typeof value === 'string' ? parseJson(value) : value;
  if (isRecord(parsed) && typeof parsed.text === 'string' && parsed.role === undefined) {
    return chatPayload([{ role: 'assistant', content: parsed.text }]);
  }
  if (parsed !== undefined) {
    const messages = normalizeMessages(parsed, 'assistant');
    if (messages !== null) return chatPayload(messages);
  }
  return toPayload(value);
}

const MESSAGE_EVENT_ROLES = table<string>({
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
});

/**
 * An event's body. As span events the log-event bodies arrive either whole, as JSON
 * in `gen_ai.event.content` (or a `body` attribute), or spread over the attributes.
 */
function eventBody(attributes: Record<string, unknown>): Record<string, unknown> {
  const whole = attributes['gen_ai.event.content'] ?? attributes['event.body'] ?? attributes.body;
  const parsed = typeof whole === 'string' ? parseJson(whole) : whole;
  const body: Record<string, unknown> = isRecord(parsed) ? { ...parsed } : { ...attributes };
  for (const key of ['tool_calls', 'message'] as const) {
    if (typeof body[key] === 'string') {
      const v = parseJson(body[key]);
      if (v !== undefined) body[key] = v;
    }
  }
  return body;
}

function hasGenAiEvent(events: SpanEvent[]): boolean {
  for (const e of events) if (e.name.startsWith('gen_ai.')) return true;
  return false;
}

/** The event form of the conventions; runs after attributes, so attributes win. */
export function mapGenAiEvents(ctx: SpanMapping): void {
  if (!hasGenAiEvent(ctx.events)) return;
  const inputs: ChatMessage[] = [];
  const inputEvents = new Set<SpanEvent>();
  const choices: { index: number; messages: ChatMessage[] }[] = [];
  const outputEvents = new Set<SpanEvent>();
  let detailsInput: ChatMessage[] | null = null;
  let detailsOutput: ChatMessage[] | null = null;

  for (const event of ctx.events) {
    const role = MESSAGE_EVENT_ROLES.get(event.name);
    if (role !== undefined) {
      const body = eventBody(event.attributes);
      if (body.role === undefined) body.role = role;
      const messages = normalizeMessages(body, role);
      if (messages !== null) {
        inputs.push(...messages);
        inputEvents.add(event);
      }
    } else if (event.name === 'gen_ai.choice') {
      const body = eventBody(event.attributes);
      const message = isRecord(body.message) ? { role: 'assistant', ...body.message } : { ...body, role: body.role ?? 'assistant' };
      const messages = normalizeMessages(message, 'assistant');
      if (messages !== null) {
        choices.push({ index: int(body.index) ?? choices.length, messages });
        outputEvents.add(event);
      }
    } else if (event.name === 'gen_ai.content.prompt') {
      const value = event.attributes['gen_ai.prompt'];
      const messages = value === undefined ? null : normalizeMessages(value, 'user');
      if (messages !== null) {
        inputs.push(...messages);
        inputEvents.add(event);
      }
    } else if (event.name === 'gen_ai.content.completion') {
      const value = event.attributes['gen_ai.completion'];
      const payload = value === undefined ? null : completionPayload(value);
      if (payload?.type === 'chat_messages') {
        choices.push({ index: choices.length, messages: payload.value });
        outputEvents.add(event);
      }
    } else if (event.name === 'gen_ai.client.inference.operation.details') {
      const attrs = event.attributes;
      const input = attrs['gen_ai.input.messages'];
      if (input !== undefined) {
        const messages = normalizeMessages(input, 'user');
        if (messages !== null) detailsInput = withInstructions(messages, attrs['gen_ai.system_instructions']).messages;
      }
      const output = attrs['gen_ai.output.messages'];
      if (output !== undefined) detailsOutput = normalizeMessages(output, 'assistant');
    }
  }

  // Message events hold nothing but the content they carried: once that content is
  // the span's input/output they are dropped so it is not stored twice. The details
  // event also carries model and usage, so it stays.
  let drop: Set<SpanEvent> | null = null;
  if (inputs.length > 0 && ctx.fillInput(chatPayload(inputs))) drop = inputEvents;
  else if (detailsInput !== null) ctx.fillInput(chatPayload(detailsInput));
  if (choices.length > 0) {
    choices.sort((x, y) => x.index - y.index);
    if (ctx.fillOutput(chatPayload(choices.flatMap((c) => c.messages)))) {
      drop = drop ? new Set([...drop, ...outputEvents]) : outputEvents;
    }
  } else if (detailsOutput !== null) {
    ctx.fillOutput(chatPayload(detailsOutput));
  }
  if (drop !== null) {
    const dropped = drop;
    ctx.events = ctx.events.filter((e) => !dropped.has(e));
  }
}

/** The parts of a stored span that GenAI events sent as log records can fill. */
export interface LogMergeTarget {
  model: string | null;
  input: SpanPayload | null;
  output: SpanPayload | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  events: SpanEvent[];
}

/**
 * Merges the GenAI events a span's log records carried into it, as if they had been span
 * events: they fill input and output only where the span has none (its attributes win), the
 * message events whose content was used are dropped, the rest are appended to its events.
 * The details event also fills a missing model and usage.
 */
export function mergeGenAiLogEvents(target: LogMergeTarget, events: SpanEvent[]): LogMergeTarget {
  const ctx = new SpanMapping({
    trace_id: '',
    span_id: '',
    parent_id: null,
    name: null,
    kind: 'internal',
    started_at: 0,
    finished_at: 0,
    attributes: new Map(),
    events: [...events],
    links: [],
    status: { code: 'unset', message: null },
    resource: {},
    scope: { name: null, version: null },
  });
  ctx.input = target.input;
  ctx.output = target.output;
  mapGenAiEvents(ctx);
  let { model, prompt_tokens: promptTokens, completion_tokens: completionTokens } = target;
  for (const event of events) {
    if (event.name !== 'gen_ai.client.inference.operation.details') continue;
    const a = event.attributes;
    model ??= str(a['gen_ai.response.model']) ?? str(a['gen_ai.request.model']);
    promptTokens ??= int(a['gen_ai.usage.input_tokens']);
    completionTokens ??= int(a['gen_ai.usage.output_tokens']);
  }
  return {
    model,
    input: ctx.input,
    output: ctx.output,
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    events: [...target.events, ...ctx.events],
  };
}
