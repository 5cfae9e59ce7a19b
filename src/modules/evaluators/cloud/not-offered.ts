/**
 * LangWatch evaluators that need a vendor or a model this server cannot call: they are in the
 * catalogue under their names (with their settings), marked unavailable, and every run answers
 * an error naming what they need and what to use instead, so a guardrail on one never passes.
 */
import { z } from 'zod';
import { EvaluatorError } from '../errors.ts';
import type { EvaluatorDefinition } from '../types.ts';

function notOffered(d: {
  path: string;
  name: string;
  description: string;
  category: EvaluatorDefinition['category'];
  data: z.ZodType;
  settings: z.ZodType;
  needs: string;
  instead: string;
}): EvaluatorDefinition {
  const why = `${d.path} is not configured on this server: it needs ${d.needs}, which Spyglass does not call. Use ${d.instead} instead.`;
  return {
    path: d.path,
    name: d.name,
    description: `${d.description} Not offered by this server: ${d.needs}.`,
    category: d.category,
    data: d.data,
    settings: d.settings,
    requiredEnv: [],
    isCostly: true,
    externalService: d.needs,
    notOffered: why,
    evaluate: () => Promise.reject(new EvaluatorError('NotConfigured', why)),
  };
}

const text = z.object({ input: z.string().nullish(), output: z.string().nullish() });
const piiEntities = (names: readonly string[]) => z.record(z.enum(names as [string, ...string[]]), z.boolean()).optional().describe('The types of PII to check for.');
const bertData = z.object({ output: z.string(), expected_output: z.string() });
const bertSettings = z.object({ checkpoint: z.string().default('bert-base-uncased'), threshold: z.number().min(0).max(1).default(0.5) });

export const NOT_OFFERED: readonly EvaluatorDefinition[] = [
  notOffered({
    path: 'aws/comprehend_pii_detection',
    name: 'Amazon Comprehend PII Detection',
    description: 'Amazon Comprehend PII detects personally identifiable information in text.',
    category: 'pii',
    data: text,
    settings: z.object({
      entity_types: piiEntities(['BANK_ACCOUNT_NUMBER', 'CREDIT_DEBIT_NUMBER', 'EMAIL', 'PHONE', 'SSN', 'NAME', 'ADDRESS', 'IP_ADDRESS', 'PASSWORD', 'PIN', 'USERNAME']),
      language_code: z.string().default('en'),
      min_confidence: z.number().min(0).max(1).default(0.5),
      aws_region: z.string().default('eu-central-1'),
    }),
    needs: 'Amazon Comprehend (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)',
    instead: 'presidio/pii_detection (pii/pii_detection), which runs in process',
  }),
  notOffered({
    path: 'google_cloud/dlp_pii_detection',
    name: 'Google Cloud DLP PII Detection',
    description: 'Google DLP PII detects personally identifiable information in text.',
    category: 'pii',
    data: text,
    settings: z.object({
      info_types: piiEntities(['phone_number', 'email_address', 'credit_card_number', 'iban_code', 'ip_address', 'passport', 'vat_number', 'medical_record_number']),
      min_likelihood: z.enum(['VERY_UNLIKELY', 'UNLIKELY', 'POSSIBLE', 'LIKELY', 'VERY_LIKELY']).default('POSSIBLE'),
    }),
    needs: 'Google Cloud DLP (GOOGLE_APPLICATION_CREDENTIALS)',
    instead: 'presidio/pii_detection (pii/pii_detection), which runs in process',
  }),
  ...(['precision', 'recall', 'f1'] as const).map((measure) =>
    notOffered({
      path: `huggingface/bert_${measure}`,
      name: `BERT Score ${measure === 'f1' ? 'F1' : measure[0].toUpperCase() + measure.slice(1)}`,
      description: `BERTScore ${measure}: token embeddings of a BERT model compared between output and expected output.`,
      category: 'quality',
      data: bertData,
      settings: bertSettings,
      needs: 'a BERT model (Hugging Face weights), which cannot be fetched here',
      instead: 'ragas/rouge_score or ragas/bleu_score',
    }),
  ),
];
