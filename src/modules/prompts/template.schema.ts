import type { InputType } from './schemas.ts';

/**
 * The template language's shared pieces: compile (template.ts) runs them on the server and
 * the web app's variables form runs the same code before the request. A schema file the web
 * app imports at run time, so nothing here but plain TypeScript (not even zod).
 */

/** `{{ name }}` placeholders; a name is anything without braces (input identifiers are free text). */
export const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

export function placeholdersOf(texts: string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(PLACEHOLDER)) names.add(m[1]);
  return [...names];
}

/** Each declared input type's value check, and how a refusal names what was expected. */
export const TYPE_CHECKS: Record<InputType, { accepts: (v: unknown) => boolean; expected: string }> = {
  str: { accepts: (v) => typeof v === 'string', expected: 'a string' },
  float: { accepts: (v) => typeof v === 'number' && Number.isFinite(v), expected: 'a number' },
  bool: { accepts: (v) => typeof v === 'boolean', expected: 'true or false' },
  image: { accepts: (v) => typeof v === 'string', expected: 'a string (an image URL or data URL)' },
  'list[str]': { accepts: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'), expected: 'an array of strings' },
  'list[float]': { accepts: (v) => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x)), expected: 'an array of numbers' },
  'list[int]': { accepts: (v) => Array.isArray(v) && v.every((x) => Number.isInteger(x)), expected: 'an array of integers' },
  'list[bool]': { accepts: (v) => Array.isArray(v) && v.every((x) => typeof x === 'boolean'), expected: 'an array of true/false' },
  dict: { accepts: (v) => typeof v === 'object' && v !== null && !Array.isArray(v), expected: 'an object' },
};
