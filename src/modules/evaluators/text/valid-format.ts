/**
 * langevals/valid_format: is the output JSON (optionally conforming to a JSON Schema) or
 * Markdown? Python and SQL need a parser of those languages, which this server does not
 * have: they answer an error naming that, never a verdict.
 */
import { z } from 'zod';
import { check } from '../checks/index.ts';
import { EvaluatorError } from '../errors.ts';
import type { EvaluationResult } from '../types.ts';

/** Formats this server has no parser for (langevals uses Python's ast and sqlglot). */
const UNPARSED_FORMATS = new Set(['python', 'sql']);

function parseSchema(text: string): z.ZodType {
  return z.fromJSONSchema(JSON.parse(text) as Record<string, unknown>);
}

const settings = z
  .object({
    format: z.enum(['json', 'markdown', 'python', 'sql']).default('json'),
    json_schema: z.string().max(100_000).nullish().describe("JSON schema to validate against when format is 'json'"),
  })
  .superRefine((s, ctx) => {
    if (!s.json_schema) return;
    try {
      parseSchema(s.json_schema);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['json_schema'], message: `not a JSON Schema this server can check: ${(err as Error).message}` });
    }
  });

const failed = (details: string): EvaluationResult => ({ status: 'processed', score: 0, passed: false, details });

/**
 * Markdown syntax beyond paragraphs: what makes Python-Markdown's HTML differ from the plain
 * text (headers, emphasis, lists, quotes, code, links, images, rules, tables).
 */
const MARKDOWN_ELEMENTS = [
  /^ {0,3}#{1,6}\s+\S/m,
  /(\*\*|__)\S(.*?\S)?\1/,
  /(^|[^*\w])\*[^*\s]([^*]*[^*\s])?\*(?!\*)/,
  /(^|\W)_[^_\s]([^_]*[^_\s])?_(?!\w)/,
  /^ {0,3}([-*+]|\d+[.)])\s+\S/m,
  /^ {0,3}>/m,
  /`[^`\n]+`/,
  /^( {4}|\t)\S/m,
  /!?\[[^\]\n]*\]\([^)\s]+(\s+"[^"]*")?\)/,
  /^ {0,3}([-*_])( *\1){2,}\s*$/m,
  /^.+\n {0,3}(=+|-+)\s*$/m,
  /<https?:\/\/[^>\s]+>/,
];

export const validFormat = check({
  path: 'langevals/valid_format',
  name: 'Valid Format Evaluator',
  description: "Allows you to check if the output is valid JSON (optionally against a JSON Schema) or Markdown. Python and SQL are not checked by this server (an error result).",
  data: z.object({ output: z.string().nullish().describe('The text checked.') }),
  settings,
  isGuardrail: true,
  evaluate: ({ data, settings: s }) => {
    const output = data.output ?? '';
    if (!output) return Promise.resolve({ status: 'skipped', details: 'Output is empty' });
    if (UNPARSED_FORMATS.has(s.format)) {
      throw new EvaluatorError('NotSupported', `format ${s.format} is not offered by this server: it has no ${s.format === 'sql' ? 'SQL' : 'Python'} parser; use json or markdown`);
    }
    if (s.format === 'markdown') {
      const found = MARKDOWN_ELEMENTS.some((element) => element.test(output));
      return Promise.resolve(
        found
          ? { status: 'processed', score: 1, passed: true }
          : { status: 'processed', passed: false, details: 'No markdown elements found. Text should contain markdown formatting like headers (#), bold (**), lists, etc.' },
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(output);
    } catch (err) {
      return Promise.resolve(failed(`Invalid JSON: ${(err as Error).message}`));
    }
    if (s.json_schema) {
      const checked = parseSchema(s.json_schema).safeParse(value);
      if (!checked.success) {
        const issues = checked.error.issues.slice(0, 10).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
        return Promise.resolve(failed(`JSON Schema validation failed: ${issues.join('; ')}`));
      }
    }
    return Promise.resolve({ status: 'processed', score: 1, passed: true });
  },
});
