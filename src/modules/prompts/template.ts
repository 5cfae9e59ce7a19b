import { badRequest } from '../../platform/errors.ts';
import type { PromptInput, PromptMessage } from '../../db/schema/index.ts';
import type { InputType } from './schemas.ts';

/** `{{ name }}` placeholders; a name is anything without braces (input identifiers are free text). */
const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

export function placeholdersOf(texts: string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(PLACEHOLDER)) names.add(m[1]);
  return [...names];
}

/** Exported for the web app's variables form: the same checks before the request. */
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

/**
 * Renders the system prompt and the messages with `variables`. A variable the template
 * uses is required (400 naming it); declared inputs also fix the value's type, checked
 * whether or not the template uses them.
 */
export function compileTemplate(
  template: { prompt: string; messages: PromptMessage[]; inputs: PromptInput[] },
  variables: Record<string, unknown>,
): { prompt: string; messages: PromptMessage[] } {
  const declared = new Map(template.inputs.map((i) => [i.identifier, i.type as InputType]));
  const used = placeholdersOf([template.prompt, ...template.messages.map((m) => m.content)]);
  for (const name of used) {
    if (variables[name] === undefined || variables[name] === null) {
      const type = declared.get(name);
      throw badRequest(
        'missing_input',
        `variables.${name}: missing required input "${name}"${type ? ` (${type})` : ''} used by the prompt`,
        `variables.${name}`,
      );
    }
  }
  for (const [name, value] of Object.entries(variables)) {
    const type = declared.get(name);
    if (!type || value === undefined || value === null) continue;
    const check = TYPE_CHECKS[type];
    if (check && !check.accepts(value)) {
      throw badRequest('invalid_input', `variables.${name}: input "${name}" is declared ${type} and must be ${check.expected}`, `variables.${name}`);
    }
  }
  const render = (text: string) =>
    text.replace(PLACEHOLDER, (_, name: string) => {
      const value = variables[name];
      return typeof value === 'string' ? value : JSON.stringify(value);
    });
  return {
    prompt: render(template.prompt),
    messages: template.messages.map((m) => ({ role: m.role, content: render(m.content) })),
  };
}
