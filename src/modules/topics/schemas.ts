import { z } from 'zod';
import { dateQueryInput } from '../../platform/date-input.ts';

const modelName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_.-]+\/\S+$/, 'must be provider/model, e.g. openai/text-embedding-3-small')
  .max(200);

/** Bounds of the re-clustering schedule: hourly at most, monthly at least. */
export const RECLUSTER_HOURS = { min: 1, max: 24 * 30 } as const;

export const topicSettingsBody = z
  .strictObject({
    embeddingsModel: modelName
      .nullable()
      .describe("provider/model that embeds each trace's input: a model provider set in the app (OpenAI or OpenAI-compatible), or openai from the server environment; null turns topics off"),
    namingModel: modelName.nullable().default(null).describe('provider/model (a chat model) that names each topic from its traces; null: topics are named by their keywords'),
    reclusterHours: z.number().int().min(RECLUSTER_HOURS.min).max(RECLUSTER_HOURS.max).default(24).describe('Topics are found again from all embedded traces this often'),
  })
  .meta({ id: 'TopicSettingsBody' });
export type TopicSettingsBody = z.output<typeof topicSettingsBody>;

export const topicsStatus = z
  .object({
    enabled: z.boolean().describe('An embeddings model is set'),
    builtAt: z.number().int().nullable().describe('When the topics were last found, epoch ms; null: never'),
    builtTraces: z.number().int().nullable().describe('How many traces that build clustered'),
    embeddedTraces: z.number().int().describe('Traces whose input is embedded (the ones topics can hold)'),
    rebuildRequestedAt: z.number().int().nullable().describe('A rebuild asked for and not yet done, epoch ms'),
    lastError: z.string().nullable().describe('Why the last build or the last embedding of new traces failed; null once one succeeds again'),
    lastErrorAt: z.number().int().nullable(),
  })
  .meta({ id: 'TopicsStatus' });

export const topicSettingsResponse = z
  .object({
    embeddingsModel: z.string().nullable(),
    namingModel: z.string().nullable(),
    reclusterHours: z.number().int(),
    updatedAt: z.number().int().nullable(),
    status: topicsStatus,
  })
  .meta({ id: 'TopicSettings' });
export type TopicSettings = z.infer<typeof topicSettingsResponse>;

/** A query-string date: epoch ms (the query string's digits) or ISO 8601. */

export const topicsQuery = z.strictObject({
  startDate: dateQueryInput.optional().describe('Traces started at or after (epoch ms or ISO 8601); default: 7 days before endDate'),
  endDate: dateQueryInput.optional().describe('Traces started at or before; default: now'),
});

export const topicSchema = z.object({
  id: z.string().describe('Stable across rebuilds while the topic stays (a rebuild keeps the id of the old topic nearest each new one)'),
  name: z.string(),
  keywords: z.array(z.string()),
  size: z.number().int().describe('Traces in the topic when it was built, and joined since'),
  traces: z.number().int().describe('Traces of the topic started in the range'),
  share: z.number().nullable().describe('traces / all traces in the range that have a topic (0..1)'),
  errors: z.number().int(),
  error_rate: z.number().nullable(),
  cost: z.number().describe('USD'),
  thumbs_up: z.number().int(),
  thumbs_down: z.number().int(),
  trend: z.array(z.object({ start: z.number().int(), traces: z.number().int() })).describe('Traces per day of the range'),
  evaluations: z
    .array(z.object({ evaluator: z.string(), passed: z.number().int(), failed: z.number().int(), pass_rate: z.number().nullable() }))
    .describe("Evaluators' verdicts on the topic's traces in the range"),
});

export const topicsResponse = z
  .object({
    topics: z.array(topicSchema),
    startDate: z.number().int(),
    endDate: z.number().int(),
    status: topicsStatus,
  })
  .meta({ id: 'TopicsResponse' });
export type TopicsResponse = z.infer<typeof topicsResponse>;
export type Topic = z.infer<typeof topicSchema>;

export const rebuildResponse = z.object({ requestedAt: z.number().int(), status: topicsStatus }).meta({ id: 'TopicsRebuild' });
