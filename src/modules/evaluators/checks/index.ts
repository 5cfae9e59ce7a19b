/**
 * Evaluators without a model (for experiments, monitors and guardrails): exact match,
 * contains / not contains, regex, valid JSON, JSON Schema conformance, length bounds, and a
 * trace's latency and cost thresholds. Built-in catalogue entries (family `checks`) whose
 * settings carry their parameters, so every one is also usable by a monitor and in the
 * playground; they are deterministic, free and instant.
 */
import { z } from 'zod';
import type { EvaluationResult, EvaluatorDefinition } from '../types.ts';

const text = (description: string) => z.string().describe(description);
const output = text('The text checked (the assistant reply).');

/** Longest text a pattern runs on: a user's pattern on unbounded text could hold the process. */
const MAX_REGEX_INPUT = 100_000;

function verdict(passed: boolean, details: string, extra: Partial<EvaluationResult> = {}): EvaluationResult {
  return { status: 'processed', passed, score: passed ? 1 : 0, details, ...extra };
}

/** An evaluator without a model: no environment, free. */
export function check<D extends z.ZodType, S extends z.ZodType>(d: Omit<EvaluatorDefinition<D, S>, 'requiredEnv' | 'isCostly' | 'category'> & { category?: EvaluatorDefinition['category'] }): EvaluatorDefinition<D, S> {
  return { category: 'quality', requiredEnv: [], isCostly: false, ...d };
}

const normalize = (s: string, o: { case_sensitive: boolean; trim: boolean }) => {
  const t = o.trim ? s.trim() : s;
  return o.case_sensitive ? t : t.toLowerCase();
};

export const exactMatch = check({
  path: 'checks/exact_match',
  name: 'Exact match',
  description: 'Passes when the output equals the expected output.',
  data: z.object({ output, expected_output: text('What the output must equal.') }),
  settings: z.object({
    case_sensitive: z.boolean().default(true),
    trim: z.boolean().default(true).describe('Ignore leading and trailing whitespace'),
  }),
  evaluate: ({ data, settings }) => {
    const same = normalize(data.output, settings) === normalize(data.expected_output, settings);
    return Promise.resolve(verdict(same, same ? 'The output equals the expected output.' : 'The output differs from the expected output.'));
  },
});

const containsSettings = z.object({
  values: z.array(z.string().min(1)).min(1).max(100).describe('The strings looked for'),
  mode: z.enum(['any', 'all']).default('any').describe('contains: any of them, or all of them'),
  case_sensitive: z.boolean().default(false),
});

function found(textValue: string, settings: z.output<typeof containsSettings>): string[] {
  const haystack = settings.case_sensitive ? textValue : textValue.toLowerCase();
  return settings.values.filter((v) => haystack.includes(settings.case_sensitive ? v : v.toLowerCase()));
}

export const contains = check({
  path: 'checks/contains',
  name: 'Contains',
  description: 'Passes when the output contains any (or all) of the given strings.',
  data: z.object({ output }),
  settings: containsSettings,
  evaluate: ({ data, settings }) => {
    const hits = found(data.output, settings);
    const passed = settings.mode === 'all' ? hits.length === settings.values.length : hits.length > 0;
    return Promise.resolve(verdict(passed, hits.length ? `Found: ${hits.join(', ')}` : 'None of the strings was found.', { raw_response: { found: hits } }));
  },
});

export const notContains = check({
  path: 'checks/not_contains',
  name: 'Does not contain',
  description: 'Passes when the output contains none of the given strings.',
  category: 'policy',
  data: z.object({ output }),
  settings: containsSettings.omit({ mode: true }),
  evaluate: ({ data, settings }) => {
    const hits = found(data.output, { ...settings, mode: 'any' });
    return Promise.resolve(verdict(hits.length === 0, hits.length ? `Found: ${hits.join(', ')}` : 'None of the strings was found.', { raw_response: { found: hits } }));
  },
});

export const regex = check({
  path: 'checks/regex',
  name: 'Regex',
  description: 'Passes when the output matches the pattern (or, with should_match false, does not).',
  data: z.object({ output }),
  settings: z
    .object({
      pattern: z.string().min(1).max(500).describe('A JavaScript regular expression'),
      flags: z.string().regex(/^[imsu]*$/, 'flags are among i, m, s, u').default(''),
      should_match: z.boolean().default(true),
    })
    .superRefine((s, ctx) => {
      try {
        new RegExp(s.pattern, s.flags);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['pattern'], message: `not a valid regular expression: ${(err as Error).message}` });
      }
    }),
  evaluate: ({ data, settings }) => {
    if (data.output.length > MAX_REGEX_INPUT) return Promise.resolve({ status: 'skipped', details: `The output is longer than ${MAX_REGEX_INPUT} characters.` });
    const match = new RegExp(settings.pattern, settings.flags).exec(data.output);
    const passed = settings.should_match ? match !== null : match === null;
    return Promise.resolve(verdict(passed, match ? `Matched: ${match[0].slice(0, 200)}` : 'No match.'));
  },
});

export const validJson = check({
  path: 'checks/valid_json',
  name: 'Valid JSON',
  description: 'Passes when the output parses as JSON.',
  data: z.object({ output }),
  settings: z.object({}),
  evaluate: ({ data }) => {
    try {
      JSON.parse(data.output);
      return Promise.resolve(verdict(true, 'The output is valid JSON.'));
    } catch (err) {
      return Promise.resolve(verdict(false, `The output is not valid JSON: ${(err as Error).message}`));
    }
  },
});

export const jsonSchema = check({
  path: 'checks/json_schema',
  name: 'JSON Schema',
  description: 'Passes when the output is JSON conforming to the JSON Schema given in settings.',
  data: z.object({ output }),
  settings: z
    .object({ schema: z.record(z.string(), z.unknown()).describe('A JSON Schema (draft 2020-12 keywords: type, properties, required, enum, items, ...)') })
    .superRefine((s, ctx) => {
      try {
        z.fromJSONSchema(s.schema);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['schema'], message: `not a JSON Schema this server can check: ${(err as Error).message}` });
      }
    }),
  evaluate: ({ data, settings }) => {
    let value: unknown;
    try {
      value = JSON.parse(data.output);
    } catch (err) {
      return Promise.resolve(verdict(false, `The output is not valid JSON: ${(err as Error).message}`));
    }
    const checked = z.fromJSONSchema(settings.schema).safeParse(value);
    if (checked.success) return Promise.resolve(verdict(true, 'The output conforms to the schema.'));
    const issues = checked.error.issues.slice(0, 10).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
    return Promise.resolve(verdict(false, `The output does not conform to the schema: ${issues.join('; ')}`, { raw_response: { issues } }));
  },
});

export const length = check({
  path: 'checks/length',
  name: 'Length bounds',
  description: 'Passes when the output has between min and max characters (or words).',
  data: z.object({ output }),
  settings: z
    .object({
      min: z.number().int().min(0).nullish(),
      max: z.number().int().min(0).nullish(),
      unit: z.enum(['characters', 'words']).default('characters'),
    })
    .refine((s) => s.min != null || s.max != null, { message: 'set min, max or both', path: ['max'] })
    .refine((s) => s.min == null || s.max == null || s.min <= s.max, { message: 'min must not exceed max', path: ['min'] }),
  evaluate: ({ data, settings }) => {
    const n = settings.unit === 'words' ? data.output.split(/\s+/).filter(Boolean).length : [...data.output].length;
    const passed = (settings.min == null || n >= settings.min) && (settings.max == null || n <= settings.max);
    return Promise.resolve(verdict(passed, `${n} ${settings.unit} (bounds ${settings.min ?? '-'}..${settings.max ?? '-'})`, { score: n, raw_response: { length: n } }));
  },
});

export const latency = check({
  path: 'checks/latency',
  name: 'Latency threshold',
  description: "Passes when the trace's total time is at most max_ms.",
  data: z.object({ latency_ms: z.number().min(0).describe("The trace's total time in ms (a monitor takes it from the trace)") }),
  settings: z.object({ max_ms: z.number().positive().default(5000) }),
  evaluate: ({ data, settings }) =>
    Promise.resolve(verdict(data.latency_ms <= settings.max_ms, `${data.latency_ms} ms (at most ${settings.max_ms} ms)`, { score: data.latency_ms })),
});

export const cost = check({
  path: 'checks/cost',
  name: 'Cost threshold',
  description: "Passes when the trace's cost (USD) is at most max_usd.",
  data: z.object({ cost: z.number().min(0).describe("The trace's cost in USD (a monitor takes it from the trace)") }),
  settings: z.object({ max_usd: z.number().positive().default(0.01) }),
  evaluate: ({ data, settings }) => Promise.resolve(verdict(data.cost <= settings.max_usd, `$${data.cost} (at most $${settings.max_usd})`, { score: data.cost })),
});

export const CHECKS = [exactMatch, contains, notContains, regex, validJson, jsonSchema, length, latency, cost] as readonly EvaluatorDefinition[];
