import type { ColumnType } from '../api/types.ts';
import { asText } from './format.ts';

/** How a cell's value is typed into a text box: a string as it is, anything else as JSON (null: empty). */
export function editText(value: unknown, type: ColumnType): string {
  if (value === null || value === undefined) return '';
  if (type === 'string' || type === 'image' || type === 'date') return asText(value);
  if (typeof value === 'string' && (type === 'number' || type === 'boolean')) return value;
  return typeof value === 'string' ? value : JSON.stringify(value, null, type === 'number' || type === 'boolean' ? undefined : 2);
}

/** Text typed or pasted into a cell, as its column's type wants it; an error says why not. */
export function parseCell(text: string, type: ColumnType, strict: boolean): { value: unknown } | { error: string } {
  const t = text.trim();
  if (t === '' && type !== 'string') return { value: null };
  switch (type) {
    case 'string':
    case 'image':
      return { value: text };
    case 'date':
      return { value: t };
    case 'number': {
      const n = Number(t);
      if (Number.isFinite(n)) return { value: n };
      return strict ? { error: `“${t.slice(0, 30)}” is not a number: this column takes numbers such as 3 or 2.5 (Escape to cancel)` } : { value: text };
    }
    case 'boolean': {
      if (/^(true|1|yes|y|on|ok)$/i.test(t)) return { value: true };
      if (/^(false|0|no|n|off)$/i.test(t)) return { value: false };
      return strict ? { error: `“${t.slice(0, 30)}” is not true or false (Escape to cancel)` } : { value: text };
    }
    default:
      try {
        return { value: JSON.parse(t) as unknown };
      } catch {
        return strict ? { error: 'Not valid JSON: this column takes JSON, e.g. ["a", "b"] or {"key": 1} (Escape to cancel)' } : { value: text };
      }
  }
}

/** A cell's value on one line. */
export function cellText(value: unknown): string {
  const s = asText(value);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
