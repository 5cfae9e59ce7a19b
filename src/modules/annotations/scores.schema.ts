import { z } from 'zod';

export const SCORE_KINDS = ['numeric', 'boolean', 'categorical'] as const;
export type ScoreKind = (typeof SCORE_KINDS)[number];

const name = z.string().trim().min(1).max(100);
const description = z.string().max(2000).nullish();
const category = z.string().trim().min(1).max(100);

export const createScoreConfigBody = z.strictObject({
  name,
  description,
  kind: z.enum(SCORE_KINDS).describe('numeric: a number within min..max; boolean: true or false; categorical: one of `categories`'),
  min: z.number().finite().optional().describe('numeric: the lowest value allowed (default 0)'),
  max: z.number().finite().optional().describe('numeric: the highest value allowed (default 1)'),
  categories: z.array(category).min(2).max(50).optional().describe('categorical: the values a reviewer picks from (2..50, distinct)'),
});
export type CreateScoreConfigBody = z.infer<typeof createScoreConfigBody>;

export const updateScoreConfigBody = z
  .strictObject({
    name: name.optional(),
    description,
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
    categories: z.array(category).min(2).max(50).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'send at least one field' });
export type UpdateScoreConfigBody = z.infer<typeof updateScoreConfigBody>;

export const scoreConfigParams = z.object({ id: z.string().min(1).max(128).describe('score config id') });

export const scoreConfigSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    kind: z.enum(SCORE_KINDS),
    min: z.number().nullable().describe('numeric only'),
    max: z.number().nullable().describe('numeric only'),
    categories: z.array(z.string()).describe('categorical only; empty otherwise'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'ScoreConfig' });
export type ScoreConfigView = z.output<typeof scoreConfigSchema>;

/** A score as sent: the config and a value of its kind. */
export const scoreInput = z.strictObject({
  configId: z.string().min(1).max(128),
  value: z.union([z.number().finite(), z.boolean(), z.string().max(100)]).describe('numeric: a number in range; boolean: true/false; categorical: one of the categories'),
});
export type ScoreInput = z.infer<typeof scoreInput>;

export const scoreSchema = z
  .object({
    configId: z.string(),
    name: z.string().describe("the config's name"),
    kind: z.enum(SCORE_KINDS),
    value: z.union([z.number(), z.boolean(), z.string()]),
  })
  .meta({ id: 'Score' });
export type ScoreView = z.output<typeof scoreSchema>;

/** A trace's scores of one config, summed up: what the traces list and experiment rows show. */
export const scoreSummarySchema = z
  .object({
    configId: z.string(),
    name: z.string().describe("the config's name"),
    kind: z.enum(SCORE_KINDS),
    count: z.number().int().describe('how many scores of this config the trace has (one per annotation)'),
    mean: z.number().nullable().describe('numeric: the mean; boolean: the share of true (0..1); categorical: null'),
    latest: z.union([z.number(), z.boolean(), z.string()]).describe('the most recent score'),
    counts: z.record(z.string(), z.number().int()).describe('categorical: scores per category; empty otherwise'),
  })
  .meta({ id: 'ScoreSummary' });
export type ScoreSummary = z.output<typeof scoreSummarySchema>;
