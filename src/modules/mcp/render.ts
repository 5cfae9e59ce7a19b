/**
 * Answers sized for a model's context: the API's JSON turned into short readable text, long
 * texts clipped with a note saying how to get the rest. Pure functions of the API's answers.
 */

/** A text cut to `max` characters, with what was left out and how to read it whole. */
export function clip(text: string, max: number, howToReadAll: string): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [clipped: ${max.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters; ${howToReadAll}]`;
}

/** One line: whitespace runs folded, cut to `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export const iso = (ms: number | null | undefined) => (typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : '-');

export function duration(ms: number | null | undefined): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export const usd = (amount: number | null | undefined) => (typeof amount === 'number' ? `$${amount < 0.01 ? amount.toPrecision(2) : amount.toFixed(4)}` : '-');

/** Any JSON value as compact text (strings as they are). */
export function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** A span's or trace's input/output payload ({type, value}) as readable text. */
export function payload(value: unknown): string {
  if (!value || typeof value !== 'object') return text(value);
  const p = value as { type?: string; value?: unknown };
  if (p.type === 'chat_messages' && Array.isArray(p.value)) {
    return p.value
      .map((m) => {
        const msg = (m ?? {}) as { role?: string; content?: unknown; tool_calls?: unknown };
        const calls = msg.tool_calls ? ` [tool_calls: ${text(msg.tool_calls)}]` : '';
        return `${msg.role ?? '?'}: ${text(msg.content)}${calls}`;
      })
      .join('\n');
  }
  return 'value' in p ? text(p.value) : text(value);
}

/** Rough token count of a text (4 characters a token, as OpenAI's rule of thumb). */
export const approxTokens = (s: string) => Math.ceil(s.length / 4);
