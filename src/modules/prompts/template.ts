import { badRequest } from '../../platform/errors.ts';
import type { PromptInput, PromptMessage } from '../../db/schema/index.ts';
import type { InputType } from './schemas.ts';
import { PLACEHOLDER, TYPE_CHECKS, placeholdersOf } from './template.schema.ts';

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
