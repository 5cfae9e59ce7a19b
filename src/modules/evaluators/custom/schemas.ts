import { z } from 'zod';

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const categorySchema = z.object({
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().max(1000).default('').describe('What belongs in this category'),
});

export const answerSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('pass_fail') }),
    z
      .strictObject({
        type: z.literal('score'),
        min: z.number().default(0),
        max: z.number().default(1),
        threshold: z.number().nullish().describe('score >= threshold passes; without one the result has no passed'),
      })
      .refine((a) => a.max > a.min, { message: 'max must be greater than min', path: ['max'] })
      .refine((a) => a.threshold === null || a.threshold === undefined || (a.threshold >= a.min && a.threshold <= a.max), { message: 'threshold must be between min and max', path: ['threshold'] }),
    z
      .strictObject({
        type: z.literal('category'),
        categories: z
          .array(categorySchema)
          .min(2)
          .max(50)
          .refine((c) => new Set(c.map((x) => x.name)).size === c.length, 'category names must be unique'),
        passing: z.array(z.string()).nullish().describe('Categories that pass; without them the result has no passed'),
      })
      .refine((a) => !a.passing || a.passing.every((p) => a.categories.some((c) => c.name === p)), { message: 'every passing category must be one of categories', path: ['passing'] }),
  ])
  .describe('The kind of answer: pass/fail, a score in a range, or one of named categories; the model gives it through a forced tool call');
export type AnswerKind = z.output<typeof answerSchema>;

const configFields = {
  prompt: z
    .string()
    .trim()
    .min(1)
    .max(20_000)
    .describe('The judge prompt; {{input}}, {{output}}, {{contexts}}, {{expected_output}}, {{conversation}} or any dataset column are filled from the evaluation data'),
  model: z.string().regex(/^[A-Za-z0-9_.-]+\/\S+$/, 'must be provider/model, e.g. openai/gpt-4o-mini').max(300),
  temperature: z.number().min(0).max(2).default(0),
  max_output_tokens: z.number().int().min(16).max(8192).default(1024),
  answer: answerSchema,
};

export const customConfigSchema = z.object(configFields);
export type CustomConfig = z.output<typeof customConfigSchema>;

export const createCustomBody = z.strictObject({
  slug: z.string().regex(SLUG_PATTERN, 'must be 1..64 lowercase letters, digits, _ or -, starting with a letter or digit').describe('Its path: custom/<slug>'),
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000).nullish(),
  ...configFields,
});
export type CreateCustomBody = z.output<typeof createCustomBody>;

export const updateCustomBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().trim().max(2000).nullish(),
    prompt: configFields.prompt.optional(),
    model: configFields.model.optional(),
    temperature: z.number().min(0).max(2).optional(),
    max_output_tokens: z.number().int().min(16).max(8192).optional(),
    answer: answerSchema.optional(),
    commit_message: z.string().trim().max(500).nullish().describe('Why this version'),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'send at least one field' });
export type UpdateCustomBody = z.output<typeof updateCustomBody>;

export const customEvaluatorSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    path: z.string().describe('custom/<slug>: POST /api/evaluations/custom/<slug>/evaluate, a monitor\'s evaluator'),
    name: z.string(),
    description: z.string().nullable(),
    version: z.number().int().describe('The version shown (the newest unless one was asked for)'),
    latest_version: z.number().int(),
    prompt: z.string(),
    model: z.string(),
    temperature: z.number(),
    max_output_tokens: z.number().int(),
    answer: answerSchema,
    variables: z.array(z.string()).describe('The template\'s variables: the data keys an evaluation must send'),
    commit_message: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'CustomEvaluator' });
export type CustomEvaluatorView = z.output<typeof customEvaluatorSchema>;

export const customListResponse = z.object({ data: z.array(customEvaluatorSchema) });

export const customVersionSchema = z.object({
  version: z.number().int(),
  prompt: z.string(),
  model: z.string(),
  temperature: z.number(),
  max_output_tokens: z.number().int(),
  answer: answerSchema,
  commit_message: z.string().nullable(),
  created_at: z.string(),
});
export type CustomVersionView = z.output<typeof customVersionSchema>;
export const customVersionsResponse = z.object({ data: z.array(customVersionSchema).describe('Newest first') });

export const slugParams = z.object({ slug: z.string().min(1).max(64) });
export const versionQuery = z.object({ version: z.coerce.number().int().positive().optional().describe('A version; default the newest') });
