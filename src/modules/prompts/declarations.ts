import type { PromptInput, PromptOutput } from '../../db/schema/index.ts';
import { badRequest } from '../../platform/errors.ts';
import type { ModelParameters } from './schemas.ts';

/** Identifiers are unique per list; a json_schema output carries its schema (it becomes response_format). */
export function checkDeclarations(content: { inputs: PromptInput[]; outputs: PromptOutput[]; parameters: ModelParameters }): void {
  const seen = new Set<string>();
  for (const [i, input] of content.inputs.entries()) {
    if (seen.has(input.identifier)) {
      throw badRequest('duplicate_input', `inputs.${i}.identifier: "${input.identifier}" is declared twice`, `inputs.${i}.identifier`);
    }
    seen.add(input.identifier);
  }
  seen.clear();
  let schemas = 0;
  for (const [i, output] of content.outputs.entries()) {
    if (seen.has(output.identifier)) {
      throw badRequest('duplicate_output', `outputs.${i}.identifier: "${output.identifier}" is declared twice`, `outputs.${i}.identifier`);
    }
    seen.add(output.identifier);
    if (output.type === 'json_schema') {
      if (!output.json_schema) {
        throw badRequest('json_schema_required', `outputs.${i}.json_schema: an output of type json_schema needs its schema`, `outputs.${i}.json_schema`);
      }
      if (++schemas > 1) {
        throw badRequest('too_many_json_schemas', `outputs.${i}.type: only one output may be of type json_schema (it becomes response_format)`, `outputs.${i}.type`);
      }
    }
  }
  checkToolChoice(content.parameters);
}

/** A tool_choice that names a tool, or requires one, needs the tool declared. */
export function checkToolChoice(parameters: ModelParameters): void {
  const choice = parameters.tool_choice;
  if (choice === undefined || choice === 'auto' || choice === 'none') return;
  const names = (parameters.tools ?? []).map((t) => t.function.name);
  if (choice === 'required' && names.length === 0) {
    throw badRequest('tool_choice_without_tools', 'parameters.tool_choice: required needs at least one tool in parameters.tools', 'parameters.tool_choice');
  }
  if (typeof choice === 'object' && !names.includes(choice.function.name)) {
    throw badRequest('unknown_tool', `parameters.tool_choice: no tool named ${choice.function.name} in parameters.tools`, 'parameters.tool_choice');
  }
}
