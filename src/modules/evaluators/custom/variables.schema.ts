/**
 * A judge template's variables, shared by the server and the web app's editor. A schema file
 * the web app imports at run time: plain TypeScript, no imports.
 */

/** `{{ name }}` placeholders, as prompt templates write them. */
export const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

export function variablesOf(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/** What a trace gives a monitor's evaluator (monitors/trace-data.schema.ts). */
export const TRACE_VARIABLES = ['input', 'output', 'contexts', 'conversation'];

/** What a thread gives a thread monitor's evaluator (threads/conversation.ts; docs/threads.md). */
export const THREAD_VARIABLES = ['conversation', 'turns', 'first_input', 'last_output', 'input', 'output'];

/** The variables every evaluation may fill; any other name is a dataset column. */
export const KNOWN_VARIABLES = ['input', 'output', 'contexts', 'expected_output', 'conversation'];
