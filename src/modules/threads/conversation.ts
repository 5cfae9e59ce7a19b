/**
 * A thread as an evaluator reads it: the variables a judge's template names
 * ({{conversation}}, {{turns}}, {{first_input}}, {{last_output}}, {{input}}, {{output}}).
 * docs/threads.md documents the format; change both together.
 */
import type { TurnContents } from './context.ts';

/** A tool call's arguments or result is cut to this many characters in the conversation text. */
export const TOOL_TEXT_MAX = 2_000;

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  // Spans store typed values ({type: 'text' | 'json' | 'chat_messages', value}).
  if (typeof value === 'object' && 'value' in value && Object.keys(value).length <= 2) return text(value.value);
  return JSON.stringify(value);
}

function cut(s: string): string {
  return s.length > TOOL_TEXT_MAX ? `${s.slice(0, TOOL_TEXT_MAX)}…` : s;
}

/**
 * The conversation, turn by turn, oldest first:
 *
 *     [Turn 1]
 *     User: <the turn's input>
 *     Tool <name>: <arguments> -> <result>
 *     Assistant: <the turn's output>
 *
 * a blank line between turns; a turn without input or output leaves its line out.
 */
export function conversationText(turns: readonly TurnContents[]): string {
  return turns
    .map((t, i) => {
      const lines = [`[Turn ${i + 1}]`];
      if (t.input.value) lines.push(`User: ${t.input.value}`);
      for (const s of t.spans) {
        if (s.type !== 'tool') continue;
        lines.push(`Tool ${s.name ?? 'call'}: ${cut(text(s.input))} -> ${cut(text(s.output))}`);
      }
      if (t.output.value) lines.push(`Assistant: ${t.output.value}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

/** The evaluator data a thread offers. */
export function threadData(turns: readonly TurnContents[]): Record<string, unknown> {
  const first = turns[0]?.input.value ?? '';
  const last = turns.at(-1)?.output.value ?? '';
  return {
    conversation: conversationText(turns),
    turns: turns.length,
    first_input: first,
    last_output: last,
    input: first,
    output: last,
  };
}
