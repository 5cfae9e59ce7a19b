import type { ColumnType } from './schemas.ts';

/**
 * Values written to a typed column by a file append, or kept through a column type change
 * (spec, Files 4): `number` parsed, an empty cell null; `boolean` from the usual words;
 * `date` as YYYY-MM-DD; the structured types JSON-parsed when the text parses. A value that
 * does not convert is kept as it was.
 */
const TRUE_WORDS = new Set(['true', '1', 'yes', 'y', 'on', 'ok']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'n', 'off', 'null', 'undefined', 'nan', 'inf']);
const STRUCTURED = new Set<ColumnType>(['list', 'json', 'spans', 'rag_contexts', 'chat_messages', 'annotations', 'evaluations']);

export function convertValue(value: unknown, type: ColumnType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'string':
    case 'image':
      if (typeof value === 'string') return value;
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
    case 'number': {
      if (typeof value === 'number') return value;
      if (typeof value === 'boolean') return value ? 1 : 0;
      if (typeof value !== 'string') return value;
      const text = value.trim();
      if (text === '') return null;
      const n = Number(text);
      return Number.isFinite(n) ? n : value;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      if (typeof value !== 'string' && typeof value !== 'number') return value;
      const word = String(value).trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      return value;
    }
    case 'date': {
      if (typeof value !== 'string' && typeof value !== 'number') return value;
      const text = String(value).trim();
      if (text === '') return null;
      if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
      const d = new Date(typeof value === 'number' ? value : text);
      return Number.isNaN(d.getTime()) ? value : d.toISOString().slice(0, 10);
    }
    default:
      if (STRUCTURED.has(type) && typeof value === 'string') {
        try {
          return JSON.parse(value) as unknown;
        } catch {
          return value;
        }
      }
      return value;
  }
}
