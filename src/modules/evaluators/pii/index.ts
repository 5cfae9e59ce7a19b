import { z } from 'zod';
import type { EvaluationResult, EvaluatorDefinition } from '../types.ts';
import { anonymize } from './anonymize.ts';
import { detectPii, type Finding } from './engine.ts';
import { ENTITY_DEFAULTS, ENTITY_TYPES, entityKey, type EntityKey, type EntityType } from './entities.ts';

export { codePointMapper, detectPii, SUPPORTED_ENTITIES, type DetectOptions, type Finding } from './engine.ts';
export { anonymize } from './anonymize.ts';
export { ENTITY_DEFAULTS, ENTITY_TYPES, type EntityType } from './entities.ts';

/**
 * Input and output together may hold at most this many UTF-8 bytes (langevals refuses
 * content over 524288 too). The limit is on the sum, since both are analysed in one call.
 */
export const MAX_INPUT_BYTES = 512 * 1024;

const entitiesShape = Object.fromEntries(
  ENTITY_TYPES.map((type) => [entityKey(type), z.boolean().default(ENTITY_DEFAULTS[type])]),
) as Record<EntityKey, z.ZodDefault<z.ZodBoolean>>;

const piiSettings = z
  .strictObject({
    entities: z
      .strictObject(entitiesShape)
      .prefault({})
      .describe('The types of PII to check for; keys and defaults as langevals (Presidio) has them.'),
    min_threshold: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe('The minimum confidence required for failing the evaluation on a PII match.'),
  })
  .prefault({});

const piiData = z
  .object({
    input: z.string().nullish(),
    output: z.string().nullish(),
  })
  .refine((d) => !!d.input?.trim() || !!d.output?.trim(), {
    message: 'at least one of input or output must be a non-empty string',
    path: ['input'],
  });

export type PiiSettings = z.output<typeof piiSettings>;
export type PiiData = z.output<typeof piiData>;

type Field = 'input' | 'output';

export interface FieldFinding extends Finding {
  field: Field;
}

export function enabledEntities(settings: PiiSettings): EntityType[] {
  return ENTITY_TYPES.filter((type) => settings.entities[entityKey(type)]);
}

function evaluatePii(data: PiiData, settings: PiiSettings): EvaluationResult {
  const fields = (['input', 'output'] as const).flatMap((field) => {
    const text = data[field];
    return typeof text === 'string' && text.trim() !== '' ? [{ field, text }] : [];
  });
  if (fields.length === 0) return { status: 'skipped', details: 'Input and output are both empty' };

  const bytes = fields.reduce((sum, f) => sum + Buffer.byteLength(f.text, 'utf8'), 0);
  if (bytes > MAX_INPUT_BYTES) {
    return {
      status: 'error',
      error_type: 'InputTooLarge',
      details: `input and output together are ${bytes} bytes of UTF-8; PII detection accepts at most ${MAX_INPUT_BYTES} (512 KiB)`,
    };
  }

  const entities = enabledEntities(settings);
  const findings: FieldFinding[] = [];
  const anonymized: Partial<Record<Field, string>> = {};
  for (const { field, text } of fields) {
    const found = detectPii(text, { entities, minThreshold: settings.min_threshold });
    for (const f of found) findings.push({ field, ...f });
    anonymized[field] = anonymize(text, found);
  }

  return {
    status: 'processed',
    score: findings.length,
    passed: findings.length === 0,
    details:
      findings.length === 0
        ? 'No PII detected'
        : `PII detected: ${findings.map((f) => `${f.entity_type} (${f.score.toFixed(2)}) in ${f.field}`).join(', ')}`,
    raw_response: {
      findings: findings.map((f) => ({
        field: f.field,
        entity_type: f.entity_type,
        start: f.start,
        end: f.end,
        score: f.score,
        text: f.text,
      })),
      anonymized,
    },
  };
}

export const piiDetection: EvaluatorDefinition<typeof piiData, typeof piiSettings> = {
  path: 'pii/pii_detection',
  name: 'PII Detection',
  description:
    'Detects personally identifiable information (credit cards, e-mail addresses, phone numbers, IBANs, ' +
    'national IDs, names, places, street addresses, ...) in the input and output, as Presidio does and beyond: ' +
    'checksummed patterns, card issuer ranges, libphonenumber, context words, gazetteers and name lists. ' +
    'Where findings of different types overlap, the most specific one is kept. Fails when anything at or above min_threshold is found; the score is ' +
    'the number of findings, and raw_response carries each finding (offsets in Unicode code points) and an ' +
    'anonymized copy of the text.',
  category: 'pii',
  data: piiData,
  settings: piiSettings,
  requiredEnv: [],
  isCostly: false,
  // langevals marks its Presidio evaluator is_guardrail; a processed result always sets `passed`.
  isGuardrail: true,
  evaluate({ data, settings }) {
    try {
      return Promise.resolve(evaluatePii(data, settings));
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      return Promise.resolve({
        status: 'error' as const,
        error_type: error.name,
        details: error.message,
        traceback: error.stack?.split('\n') ?? [],
      });
    }
  },
};
