import { z } from 'zod';

export const MAX_TRACE_ID_LENGTH = 256;
export const MAX_EVALUATION_NAME_LENGTH = 200;

export const evaluatorParams = z.object({
  family: z.string().min(1).max(64),
  name: z.string().min(1).max(128),
});

export const evaluateBody = z.object({
  data: z
    .record(z.string(), z.unknown())
    .describe('The evaluator\'s data fields (GET /api/evaluations lists them per evaluator).'),
  settings: z
    .record(z.string(), z.unknown())
    .nullish()
    .describe('Evaluator settings; omitted ones take their defaults. Unknown settings are refused (400).'),
  trace_id: z
    .string()
    .trim()
    .min(1)
    .max(MAX_TRACE_ID_LENGTH)
    .nullish()
    .describe('Store the result on this trace (it may arrive later); it then appears in the trace\'s evaluations.'),
  name: z
    .string()
    .trim()
    .min(1)
    .max(MAX_EVALUATION_NAME_LENGTH)
    .nullish()
    .describe('The name the stored evaluation shows; defaults to the evaluator\'s name.'),
  span_id: z
    .string()
    .max(MAX_TRACE_ID_LENGTH)
    .nullish()
    .describe('Sent by the LangWatch SDKs (with or without a value): the answer is then one result object instead of an array, as LangWatch answers.'),
  as_guardrail: z
    .boolean()
    .nullish()
    .describe('Run as a guardrail: every result carries `passed` (false when the evaluator failed the content or the evaluation itself failed) and the X-Guardrail-Passed header tells whether the guarded call may proceed.'),
});

export type EvaluateBody = z.output<typeof evaluateBody>;

export const costSchema = z.object({ currency: z.string(), amount: z.number() });

/** One result of the spec's "Evaluation request and result" table, plus the stored id. */
export const evaluationResultSchema = z.object({
  status: z.enum(['processed', 'skipped', 'error']),
  score: z.number().optional(),
  passed: z.boolean().optional(),
  label: z.string().optional(),
  details: z.string().optional(),
  cost: costSchema.optional(),
  raw_response: z.record(z.string(), z.unknown()).optional(),
  error_type: z.string().optional(),
  traceback: z.array(z.string()).optional(),
  evaluation_id: z.string().optional().describe('Set when the result was stored on a trace (trace_id).'),
});

const jsonSchema = z.record(z.string(), z.unknown());

export const catalogueEntrySchema = z.object({
  path: z.string().describe('The {family}/{name} of POST /api/evaluations/{family}/{name}/evaluate.'),
  aliases: z.array(z.string()).describe("LangWatch's names of the same evaluator (e.g. presidio/pii_detection): they run it too, with the same result"),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  data: jsonSchema.describe('JSON Schema of `data`.'),
  settings: jsonSchema.describe('JSON Schema of `settings`, with each default.'),
  defaultSettings: z.record(z.string(), z.unknown()),
  requiredEnv: z.array(z.string()).describe('Server variables the default settings need.'),
  isCostly: z.boolean(),
  isGuardrail: z.boolean(),
  requirements: z
    .object({
      llm: z.boolean().describe("Calls an LLM (the judges' OpenAI-compatible provider of settings.model)"),
      external_service: z.string().nullable().describe('Another outside service it calls, e.g. Azure AI Content Safety'),
      env: z.array(z.string()).describe('Server variables it needs with its default settings'),
    })
    .describe('What running it takes'),
  available: z.boolean().describe('false while a variable it needs is not set on the server'),
  unavailable_reason: z.string().nullable().describe('Why it cannot run here, naming the variables to set'),
  version: z.number().int().optional().describe('Custom evaluators (path custom/<slug>): the newest version'),
});
export type CatalogueEntryView = z.infer<typeof catalogueEntrySchema>;

export const catalogueResponse = z.object({ evaluators: z.array(catalogueEntrySchema) });

/** The spec's "Trace evaluation", plus the result's score, passed, label, details and cost. */
export const traceEvaluationSchema = z.object({
  evaluation_id: z.string(),
  name: z.string(),
  type: z.string().describe('The evaluator path, e.g. rag/context_recall.'),
  trace_id: z.string(),
  project_id: z.string(),
  status: z.enum(['processed', 'skipped', 'error']),
  score: z.number().nullable(),
  passed: z.boolean().nullable(),
  label: z.string().nullable(),
  details: z.string().nullable(),
  cost: costSchema.nullable(),
  is_guardrail: z.boolean(),
  timestamps: z.object({ inserted_at: z.number().int(), updated_at: z.number().int() }),
  error: z
    .object({
      stacktrace: z.array(z.string()),
      message: z.string(),
      has_error: z.boolean(),
      error_type: z.string().nullable(),
    })
    .nullable(),
});

export type TraceEvaluation = z.output<typeof traceEvaluationSchema>;
