/**
 * langevals' rule evaluators without a model, by LangWatch's names and settings:
 * `langevals/exact_match` (its normalisation: numbers compared as numbers, then trim,
 * punctuation and case) and `langevals/basic` (contains / regex rules on input or output,
 * all of which must pass). Regular expressions run on re2js: linear time, so a user's
 * pattern cannot hold the process however long the text.
 */
import { RE2JS } from 're2js';
import { z } from 'zod';
import { check } from '../checks/index.ts';
import type { EvaluationResult } from '../types.ts';

const optionalText = (description: string) => z.string().nullish().describe(description);

function verdict(passed: boolean, details: string | undefined): EvaluationResult {
  return { status: 'processed', score: passed ? 1 : 0, passed, ...(details === undefined ? {} : { details }) };
}

/** Python's float(): surrounding whitespace, underscores between digits, inf and nan. */
function asNumber(text: string): number | null {
  const t = text.trim();
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return Number.NaN;
  if (!/^[+-]?((\d(_?\d)*)(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?$/.test(t)) return null;
  return Number(t.replaceAll('_', ''));
}

const exactMatchSettings = z.object({
  case_sensitive: z.boolean().default(false).describe('True if the comparison should be case-sensitive, False otherwise'),
  trim_whitespace: z.boolean().default(true).describe('True if the comparison should trim whitespace, False otherwise'),
  remove_punctuation: z.boolean().default(true).describe('True if the comparison should remove punctuation, False otherwise'),
});

/** Python's str.isalnum() or str.isspace(), per character. */
const KEPT_CHARACTER = /[\p{L}\p{N}\s]/u;

export const langevalsExactMatch = check({
  path: 'langevals/exact_match',
  name: 'Exact Match Evaluator',
  description: 'A simple evaluator that checks if the output matches the expected_output exactly (two numbers are compared as numbers).',
  category: 'quality',
  data: z.object({ output: optionalText('The text checked.'), expected_output: optionalText('What the output must equal.') }),
  settings: exactMatchSettings,
  evaluate: ({ data, settings }) => {
    let output = data.output ?? '';
    let expected = data.expected_output ?? '';
    const [a, b] = [asNumber(output), asNumber(expected)];
    if (a !== null && b !== null) {
      const same = a === b;
      return Promise.resolve(verdict(same, same ? `${output} == ${expected}` : `Expected ${output} to be equal to ${expected}`));
    }
    if (settings.trim_whitespace) [output, expected] = [output.trim(), expected.trim()];
    if (settings.remove_punctuation) {
      const keep = (s: string) => [...s].filter((c) => KEPT_CHARACTER.test(c)).join('');
      [output, expected] = [keep(output), keep(expected)];
    }
    if (!settings.case_sensitive) [output, expected] = [output.toLowerCase(), expected.toLowerCase()];
    const same = output === expected;
    return Promise.resolve(verdict(same, same ? `${output} == ${expected}` : `Expected:\n\t"${output}"\n\nTo be exactly equal to:\n\t"${expected}"`));
  },
});

const RULES = ['contains', 'not_contains', 'matches_regex', 'not_matches_regex'] as const;

const basicRule = z
  .object({
    field: z.enum(['input', 'output']).default('output'),
    rule: z.enum(RULES),
    value: z.string().max(1000),
  })
  .superRefine((r, ctx) => {
    if (!r.rule.endsWith('regex')) return;
    try {
      RE2JS.compile(r.value, RE2JS.MULTILINE);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `not a regular expression this server runs (RE2 syntax: no backreferences or lookarounds): ${(err as Error).message}` });
    }
  });

const basicSettings = z.object({
  rules: z
    .array(basicRule)
    .max(100)
    .default([{ field: 'output', rule: 'not_contains', value: 'artificial intelligence' }])
    .describe('List of rules to check, the message must pass all of them'),
});

function holds(rule: z.output<typeof basicRule>, text: string): boolean {
  switch (rule.rule) {
    case 'contains':
      return text.includes(rule.value);
    case 'not_contains':
      return !text.includes(rule.value);
    case 'matches_regex':
      return RE2JS.compile(rule.value, RE2JS.MULTILINE).matcher(text).find();
    case 'not_matches_regex':
      return !RE2JS.compile(rule.value, RE2JS.MULTILINE).matcher(text).find();
  }
}

export const langevalsBasic = check({
  path: 'langevals/basic',
  name: 'Custom Basic Evaluator',
  description: 'Allows you to check for simple text matches or regex evaluation (RE2 syntax, multiline) on the input or the output; every rule must pass.',
  category: 'custom',
  data: z.object({ input: optionalText('The user message.'), output: optionalText('The assistant reply.') }),
  settings: basicSettings,
  isGuardrail: true,
  evaluate: ({ data, settings }) => {
    if (settings.rules.length === 0) return Promise.resolve(verdict(false, 'No rules were defined'));
    for (const rule of settings.rules) {
      const text = (rule.field === 'input' ? data.input : data.output) ?? '';
      if (!holds(rule, text)) return Promise.resolve(verdict(false, `Rule ${rule.rule} "${rule.value}" failed for ${rule.field} "${text}"`));
    }
    return Promise.resolve(verdict(true, undefined));
  },
});
