/**
 * langevals/valid_format: is the output JSON (optionally conforming to a JSON Schema),
 * Markdown, Python or SQL? langevals parses Python with Python's `ast` and SQL with sqlglot;
 * here Python goes through Lezer's Python grammar (a syntax check, no execution) and SQL
 * through node-sql-parser, both loaded on first use so the server starts without them.
 */
import { z } from 'zod';
import { check } from '../checks/index.ts';
import type { EvaluationResult } from '../types.ts';

/** Where the first syntax error is (a 1-based line and column), or null when the text parses. */
async function pythonSyntaxError(text: string): Promise<string | null> {
  const { parser } = await import('@lezer/python');
  let at: number | null = null;
  parser.parse(text).iterate({
    enter(node) {
      if (at === null && node.type.isError) at = node.from;
      return at === null;
    },
  });
  if (at === null) return null;
  const before = text.slice(0, at).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}

let sqlParser: { astify(sql: string): unknown } | undefined;
async function sqlSyntaxError(text: string): Promise<string | null> {
  if (!sqlParser) {
    const { default: sql } = await import('node-sql-parser');
    sqlParser = new sql.Parser();
  }
  try {
    sqlParser.astify(text);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

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
  description: 'Allows you to check if the output is valid JSON (optionally against a JSON Schema), Markdown, Python or SQL.',
  data: z.object({ output: z.string().nullish().describe('The text checked.') }),
  settings,
  isGuardrail: true,
  evaluate: async ({ data, settings: s }) => {
    const output = data.output ?? '';
    if (!output) return { status: 'skipped', details: 'Output is empty' };
    if (s.format === 'python') {
      const error = await pythonSyntaxError(output);
      return error ? failed(`Invalid Python: syntax error at ${error}`) : { status: 'processed', score: 1, passed: true };
    }
    if (s.format === 'sql') {
      const error = await sqlSyntaxError(output);
      return error ? failed(`Invalid SQL: ${error}`) : { status: 'processed', score: 1, passed: true };
    }
    if (s.format === 'markdown') {
      const found = MARKDOWN_ELEMENTS.some((element) => element.test(output));
      return found
        ? { status: 'processed', score: 1, passed: true }
        : { status: 'processed', passed: false, details: 'No markdown elements found. Text should contain markdown formatting like headers (#), bold (**), lists, etc.' };
    }
    let value: unknown;
    try {
      value = JSON.parse(output);
    } catch (err) {
      return failed(`Invalid JSON: ${(err as Error).message}`);
    }
    if (s.json_schema) {
      const checked = parseSchema(s.json_schema).safeParse(value);
      if (!checked.success) {
        const issues = checked.error.issues.slice(0, 10).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
        return failed(`JSON Schema validation failed: ${issues.join('; ')}`);
      }
    }
    return { status: 'processed', score: 1, passed: true };
  },
});
