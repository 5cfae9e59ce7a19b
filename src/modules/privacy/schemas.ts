import { z } from 'zod';
import { RE2JS } from 're2js';
import { ENTITY_DEFAULTS, ENTITY_TYPES, type EntityType } from '../evaluators/index.ts';

export const PRIVACY_MODES = ['off', 'flag', 'mask', 'hash'] as const;
export type PrivacyMode = (typeof PRIVACY_MODES)[number];

/** The entity types on when a project names none: the PII evaluator's defaults. */
export const DEFAULT_ENTITIES = ENTITY_TYPES.filter((t) => ENTITY_DEFAULTS[t]);

const patternSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'an uppercase letter, then up to 63 uppercase letters, digits or _ (it is the placeholder: <NAME>)')
    .describe('The placeholder its matches become: <NAME>'),
  pattern: z.string().min(1).max(1000).describe('A regular expression in RE2 syntax (no look-around, no back-references): it runs in linear time'),
});
export type PrivacyPattern = z.output<typeof patternSchema>;

export const privacySettingsBody = z
  .strictObject({
    mode: z
      .enum(PRIVACY_MODES)
      .describe('off: stored as sent; flag: stored as sent, what was found is counted; mask: each value becomes <TYPE>; hash: each value becomes <TYPE:keyed hash>, the same value giving the same token in this project'),
    entities: z
      .array(z.enum(ENTITY_TYPES as [EntityType, ...EntityType[]]))
      .max(ENTITY_TYPES.length)
      .default(DEFAULT_ENTITIES)
      .describe("The PII evaluator's entity types to look for (GET /api/evaluations lists them); default: its default ones"),
    untouched_keys: z
      .array(z.string().min(1).max(200))
      .max(200)
      .default([])
      .describe('Fields (input, output, metadata, attributes, comment, ...) or attribute and metadata keys whose values are never touched, at any depth: ids, model names'),
    patterns: z.array(patternSchema).max(50).default([]).describe("The project's own patterns, each a placeholder name and an RE2 expression"),
  })
  .superRefine((body, ctx) => {
    body.patterns.forEach((p, i) => {
      try {
        RE2JS.compile(p.pattern);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['patterns', i, 'pattern'], message: `not a pattern RE2 accepts: ${err instanceof Error ? err.message : String(err)}` });
      }
    });
  });
export type PrivacySettingsBody = z.output<typeof privacySettingsBody>;

export const privacySettingsResponse = z.object({
  mode: z.enum(PRIVACY_MODES),
  entities: z.array(z.string()),
  untouched_keys: z.array(z.string()),
  patterns: z.array(z.object({ name: z.string(), pattern: z.string() })),
  updated_at: z.string().nullable().describe('When they were last changed; null: never (privacy is off)'),
  applies_to: z.string().describe('What the settings apply to: data arriving from their change on; what is stored stays as it was'),
});

export const redactionRecordSchema = z
  .object({
    total: z.number().int().describe('Values removed from the trace'),
    summary: z.string().describe('The record in a sentence: "3 values redacted: 2 EMAIL_ADDRESS in input, 1 PHONE_NUMBER in output"'),
    counts: z.array(z.object({ field: z.string(), entity_type: z.string(), count: z.number().int() })),
  })
  .describe('What privacy at ingest removed from the trace, without the values');

export const hashProbeBody = z.strictObject({
  value: z.string().min(1).max(1000).describe('A value as a user typed it (an e-mail address, a phone number, ...)'),
});
export const hashProbeResponse = z.object({
  text: z.string().describe("The value as this project's settings store it: what to search for"),
});
