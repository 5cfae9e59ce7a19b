/**
 * Chat messages and span payloads. Every convention writes messages its own way:
 * OpenTelemetry GenAI `{role, parts: [{type: text|tool_call|tool_call_response|...}]}`,
 * OpenAI `{role, content, tool_calls}`, the Vercel AI SDK's `{role, content: [{type:
 * text|tool-call|tool-result}]}`, Anthropic `tool_use`/`tool_result` blocks. They all
 * become one ChatMessage shape: content a string when the message is only text,
 * tool calls in the OpenAI form, each tool result its own `tool` message.
 */
import { idString, isRecord, parseJson, str } from './mapping-context.ts';
import type { ChatMessage, SpanPayload } from './types.ts';

export interface ToolCall {
  id?: string;
  type: string;
  function: { name: string; arguments: string };
}

function argumentsString(args: unknown): string {
  if (typeof args === 'string') return args;
  if (args === undefined || args === null) return '{}';
  return JSON.stringify(args);
}

export function makeToolCall(id: unknown, name: unknown, args: unknown): ToolCall {
  const fn = { name: str(name) ?? '', arguments: argumentsString(args) };
  const callId = idString(id);
  return callId === null ? { type: 'function', function: fn } : { id: callId, type: 'function', function: fn };
}

/** One tool call in any of the shapes senders use, as an OpenAI-style tool call. */
export function normalizeToolCall(tc: unknown): unknown {
  if (!isRecord(tc)) return tc;
  if (isRecord(tc.tool_call)) return normalizeToolCall(tc.tool_call); // OpenInference nesting
  if (isRecord(tc.function)) {
    const fn = tc.function;
    const call = makeToolCall(tc.id, fn.name, fn.arguments);
    if (typeof tc.type === 'string') call.type = tc.type;
    return call;
  }
  if (tc.toolName !== undefined) return makeToolCall(tc.toolCallId, tc.toolName, tc.input ?? tc.args);
  if (tc.name !== undefined) return makeToolCall(tc.id ?? tc.call_id, tc.name, tc.arguments ?? tc.input);
  return tc;
}

/** Tool output as message content: strings as they are, text blocks joined, the rest as JSON. */
function contentString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (Array.isArray(value) && value.every((p) => isRecord(p) && p.type === 'text' && typeof p.text === 'string')) {
    return value.map((p) => (p as { text: string }).text).join('\n');
  }
  return JSON.stringify(value);
}

/** The Vercel AI SDK (v5+) wraps tool output as `{type: 'text' | 'json' | ..., value}`. */
function unwrapTypedValue(value: unknown): unknown {
  return isRecord(value) && typeof value.type === 'string' && 'value' in value ? value.value : value;
}

function toolResult(id: unknown, content: unknown, name?: unknown): ChatMessage {
  const msg: ChatMessage = { role: 'tool', content: contentString(content) };
  const callId = idString(id);
  if (callId !== null) msg.tool_call_id = callId;
  const toolName = str(name);
  if (toolName !== null) msg.name = toolName;
  return msg;
}

function textOf(part: Record<string, unknown>): string | null {
  return typeof part.content === 'string' ? part.content : typeof part.text === 'string' ? part.text : null;
}

/**
 * Content parts -> message content. Only-text parts collapse to one string; as soon
 * as another kind of part shows up (image, reasoning, server tool call, ...) the
 * content stays an ordered array with text parts as `{type: 'text', text}`.
 */
function convertParts(parts: unknown[], toolCalls: unknown[], toolResults: ChatMessage[]): string | null | unknown[] {
  const texts: string[] = [];
  let items: unknown[] | null = null;
  for (const part of parts) {
    let text: string | null = null;
    let other: unknown = null;
    if (typeof part === 'string') {
      text = part;
    } else if (isRecord(part)) {
      switch (part.type) {
        case 'text':
        case 'input_text':
        case 'output_text':
          text = textOf(part);
          if (text === null) other = part;
          break;
        case 'tool_call': // OpenTelemetry GenAI
          toolCalls.push(makeToolCall(part.id, part.name, part.arguments));
          break;
        case 'tool-call': // Vercel AI SDK
          toolCalls.push(makeToolCall(part.toolCallId, part.toolName, part.input ?? part.args));
          break;
        case 'tool_use': // Anthropic
          toolCalls.push(makeToolCall(part.id, part.name, part.input));
          break;
        case 'function_call': // OpenAI Responses
          toolCalls.push(makeToolCall(part.call_id ?? part.id, part.name, part.arguments));
          break;
        case 'tool_call_response':
          toolResults.push(toolResult(part.id, part.response));
          break;
        case 'tool-result':
          toolResults.push(toolResult(part.toolCallId, unwrapTypedValue(part.output ?? part.result), part.toolName));
          break;
        case 'tool_result':
          toolResults.push(toolResult(part.tool_use_id, part.content));
          break;
        case 'function_call_output':
          toolResults.push(toolResult(part.call_id, part.output));
          break;
        default:
          other = part;
      }
    }
    if (text !== null) {
      if (items) items.push({ type: 'text', text });
      else texts.push(text);
    } else if (other !== null) {
      if (!items) items = texts.map((t) => ({ type: 'text', text: t }));
      items.push(other);
    }
  }
  if (items) return items;
  if (texts.length === 0) return null;
  return texts.length === 1 ? texts[0] : texts.join('\n');
}

function pushMessage(src: Record<string, unknown>, out: ChatMessage[], defaultRole: string): void {
  // An OpenAI choice or a gen_ai.choice body: {index, finish_reason, message: {...}}.
  if (src.role === undefined && isRecord(src.message)) {
    pushMessage(src.message, out, str(src.message.role) ?? defaultRole);
    return;
  }
  const role = str(src.role) ?? defaultRole;
  const msg: ChatMessage = { role, content: null };
  const toolCalls: unknown[] = [];
  const toolResults: ChatMessage[] = [];
  const parts = Array.isArray(src.parts) ? src.parts : Array.isArray(src.content) ? src.content : null;
  if (parts) msg.content = convertParts(parts, toolCalls, toolResults);
  else if (typeof src.content === 'string') msg.content = src.content;
  else if (src.content !== undefined && src.content !== null) msg.content = JSON.stringify(src.content);
  else if (typeof src.text === 'string') msg.content = src.text;

  const calls = Array.isArray(src.tool_calls) ? src.tool_calls : Array.isArray(src.toolCalls) ? src.toolCalls : null;
  if (calls) for (const tc of calls) toolCalls.push(normalizeToolCall(tc));
  if (isRecord(src.function_call)) {
    toolCalls.push(makeToolCall(undefined, src.function_call.name, src.function_call.arguments));
  }
  if (toolCalls.length > 0) msg.tool_calls = toolCalls;
  const toolCallId = idString(src.tool_call_id ?? src.toolCallId ?? (role === 'tool' ? src.id : undefined));
  if (toolCallId !== null) msg.tool_call_id = toolCallId;
  const name = str(src.name);
  if (name !== null) msg.name = name;

  for (const result of toolResults) out.push(result);
  const empty = msg.content === null || msg.content === '' || (Array.isArray(msg.content) && msg.content.length === 0);
  if (!empty || toolCalls.length > 0 || toolResults.length === 0) out.push(msg);
}

/**
 * Messages from a value a convention says holds messages: an array of messages in
 * any supported shape (bare strings become `defaultRole` messages), one message, or
 * an object with a `messages` array. Null when it holds none of these.
 */
export function normalizeMessages(value: unknown, defaultRole = 'user'): ChatMessage[] | null {
  const parsed = typeof value === 'string' ? parseJson(value) : value;
  if (parsed === undefined) return null;
  let list: unknown[];
  if (Array.isArray(parsed)) list = parsed;
  else if (isRecord(parsed) && Array.isArray(parsed.messages)) list = parsed.messages;
  else if (isRecord(parsed) && (parsed.role !== undefined || parsed.parts !== undefined || isRecord(parsed.message))) list = [parsed];
  else return null;
  const out: ChatMessage[] = [];
  for (const item of list) {
    // Some SDKs send a string[] attribute holding one JSON message per element.
    const message = typeof item === 'string' ? (parseJson(item) ?? item) : item;
    if (isRecord(message)) pushMessage(message, out, defaultRole);
    else if (typeof message === 'string') out.push({ role: defaultRole, content: message });
    else return null;
  }
  return out;
}

function isMessageLike(v: unknown): boolean {
  if (!isRecord(v)) return false;
  if (typeof v.role === 'string') {
    return 'content' in v || 'parts' in v || 'tool_calls' in v || 'toolCalls' in v || 'function_call' in v;
  }
  return isRecord(v.message) && typeof v.message.role === 'string' && ('finish_reason' in v || 'index' in v);
}

/** Messages when a value of unknown meaning plainly is a conversation, else null. */
export function detectMessages(value: unknown): ChatMessage[] | null {
  if (Array.isArray(value)) {
    return value.length > 0 && value.every(isMessageLike) ? normalizeMessages(value) : null;
  }
  if (!isRecord(value)) return null;
  if (Array.isArray(value.messages) && value.messages.length > 0 && Object.keys(value).length === 1) {
    return value.messages.every(isMessageLike) ? normalizeMessages(value.messages) : null;
  }
  return isMessageLike(value) ? normalizeMessages([value]) : null;
}

export function chatPayload(messages: ChatMessage[] | null): SpanPayload | null {
  return messages === null ? null : { type: 'chat_messages', value: messages };
}

/** An already-structured value as a payload: a conversation, text, or JSON. */
export function structuredPayload(value: unknown): SpanPayload | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return { type: 'text', value };
  const messages = detectMessages(value);
  if (messages !== null) return { type: 'chat_messages', value: messages };
  return { type: 'json', value };
}

/**
 * Any input/output attribute value as a payload: strings holding JSON are parsed
 * (then a conversation or JSON), other strings are text, structured values as above.
 */
export function toPayload(value: unknown): SpanPayload | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    const parsed = parseJson(value);
    return parsed === undefined || parsed === null ? { type: 'text', value } : structuredPayload(parsed);
  }
  return structuredPayload(value);
}

/** Text of a parts array (system instructions): text parts joined; null if there is none. */
export function partsToText(value: unknown): string | null {
  const parsed = typeof value === 'string' ? (parseJson(value) ?? value) : value;
  if (typeof parsed === 'string') return parsed;
  if (!Array.isArray(parsed)) return null;
  const texts: string[] = [];
  for (const p of parsed) {
    if (typeof p === 'string') texts.push(p);
    else if (isRecord(p) && typeof (p.content ?? p.text) === 'string') texts.push((p.content ?? p.text) as string);
  }
  return texts.length > 0 ? texts.join('\n') : null;
}
