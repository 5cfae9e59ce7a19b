/**
 * Every evaluator of the spec's Evaluators table, by path, and how the catalogue route
 * describes each one (JSON Schemas from the same zod schemas that validate requests).
 */
import { z } from 'zod';
import { jailbreak } from './cloud/jailbreak.ts';
import { ragFaithfulness } from './legacy/rag-faithfulness.ts';
import { competitorBlocklist } from './llm/competitor-blocklist.ts';
import { competitorLlmFunctionCall } from './llm/competitor-llm-function-call.ts';
import { llmAnswerMatch, llmBoolean } from './llm/llm-boolean.ts';
import { rubricsBasedScoring, sqlQueryEquivalence } from './llm/ragas-judges.ts';
import { competitorLlm } from './llm/competitor-llm.ts';
import { llamaGuard } from './llm/llama-guard.ts';
import { productSentimentPolarity } from './llm/product-sentiment-polarity.ts';
import { answerCorrectness, contextRelevancy, contextUtilization, factualCorrectness, responseContextPrecision, responseContextRecall, responseRelevancy } from './llm/ragas-metrics.ts';
import { sentiment } from './llm/sentiment.ts';
import { similarity } from './llm/similarity.ts';
import { pairwiseCompare } from './llm/pairwise-compare.ts';
import { selectBestCompare } from './llm/select-best-compare.ts';
import { azureContentSafety, azurePromptInjection } from './cloud/azure-safety.ts';
import { llmCategory } from './llm/llm-category.ts';
import { llmScore } from './llm/llm-score.ts';
import { offTopic } from './llm/off-topic.ts';
import { queryResolution } from './llm/query-resolution.ts';
import { piiDetection } from './pii/index.ts';
import { contextPrecisionEvaluator, contextRecallEvaluator } from './rag/index.ts';
import { summarizationScore } from './rag/summarization-score.ts';
import type { EvaluatorDefinition } from './types.ts';
import { CHECKS } from './checks/index.ts';
import { openaiModeration } from './cloud/moderation.ts';
import { NOT_OFFERED } from './cloud/not-offered.ts';
import { contextF1 } from './rag/context-f1.ts';
import { levenshteinDistance, toCodePoints } from './rag/string-distance.ts';
import { languageDetection } from './text/language-detection.ts';
import { bleuScore, rougeScore } from './text/overlap.ts';
import { langevalsBasic, langevalsExactMatch } from './text/rules.ts';
import { validFormat } from './text/valid-format.ts';
import { wordCount } from './text/word-count.ts';

export const EVALUATORS: readonly EvaluatorDefinition[] = [
  ragFaithfulness,
  // Both always answer `passed` (langevals marks them as guardrails); their files predate the flag.
  { ...piiDetection, isGuardrail: true },
  contextRecallEvaluator,
  contextPrecisionEvaluator,
  queryResolution,
  competitorLlmFunctionCall,
  { ...competitorBlocklist, isGuardrail: true },
  llmCategory,
  llmScore,
  summarizationScore,
  offTopic,
  jailbreak,
  ...CHECKS,
  // LangWatch's evaluators by their own names (langevals' settings and results).
  langevalsExactMatch,
  langevalsBasic,
  validFormat,
  languageDetection,
  bleuScore,
  rougeScore,
  contextF1,
  wordCount,
  llmBoolean,
  llmAnswerMatch,
  openaiModeration,
  sqlQueryEquivalence,
  rubricsBasedScoring,
  competitorLlm,
  similarity,
  sentiment,
  responseRelevancy,
  factualCorrectness,
  answerCorrectness,
  responseContextRecall,
  responseContextPrecision,
  contextUtilization,
  contextRelevancy,
  llamaGuard,
  productSentimentPolarity,
  selectBestCompare,
  pairwiseCompare,
  azureContentSafety,
  azurePromptInjection,
  ...NOT_OFFERED,
] as readonly EvaluatorDefinition[];

/**
 * LangWatch's names of the same evaluators (langevals' paths, which the LangWatch SDKs send):
 * each runs the evaluator it names here, with the same data, settings and result.
 */
export const EVALUATOR_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'pii/pii_detection': ['presidio/pii_detection'],
  'legacy/rag_faithfulness': ['legacy/ragas_faithfulness', 'ragas/faithfulness', 'haystack/faithfulness'],
  'rag/context_recall': ['ragas/context_recall'],
  'rag/context_precision': ['ragas/context_precision'],
  'rag/summarization_score': ['ragas/summarization_score'],
  'llm/query_resolution': ['langevals/query_resolution'],
  'llm/competitor_llm_function_call': ['langevals/competitor_llm_function_call'],
  'llm/competitor_blocklist': ['langevals/competitor_blocklist', 'langevals/blocklist'],
  'llm/llm_category': ['langevals/llm_category'],
  'llm/llm_score': ['langevals/llm_score'],
  'llm/off_topic': ['langevals/off_topic'],
  'cloud/jailbreak': ['azure/jailbreak'],
  // Ragas' metrics under their older names (langevals' legacy/ evaluators and Ragas' renames).
  'ragas/response_relevancy': ['ragas/answer_relevancy', 'legacy/ragas_answer_relevancy'],
  'ragas/answer_correctness': ['legacy/ragas_answer_correctness'],
  'ragas/response_context_recall': ['legacy/ragas_context_recall'],
  'ragas/response_context_precision': ['legacy/ragas_context_precision'],
  'ragas/context_utilization': ['legacy/ragas_context_utilization'],
  'ragas/context_relevancy': ['legacy/ragas_context_relevancy'],
};

const byPath = new Map<string, EvaluatorDefinition>(EVALUATORS.map((e) => [e.path, e]));
const byAlias = new Map<string, EvaluatorDefinition>(
  EVALUATORS.flatMap((e) => (EVALUATOR_ALIASES[e.path] ?? []).map((alias) => [alias, e] as const)),
);

/** The evaluator of a Spyglass path or of one of its LangWatch aliases. */
export function findEvaluator(path: string): EvaluatorDefinition | undefined {
  return byPath.get(path) ?? byAlias.get(path);
}

/** Every name a request may use: paths and aliases. */
const allNames = [...byPath.keys(), ...byAlias.keys()];

/**
 * The names nearest to an unknown one, for the 404 (a typo, or a family's other members):
 * by edit distance of the whole name, the evaluator part weighing as much, nearest first.
 */
export function closestEvaluatorNames(path: string, count = 3): string[] {
  const name = path.slice(path.indexOf('/') + 1);
  const distance = (candidate: string) =>
    Math.min(
      levenshteinDistance(toCodePoints(path), toCodePoints(candidate)),
      levenshteinDistance(toCodePoints(name), toCodePoints(candidate.slice(candidate.indexOf('/') + 1))) + 1,
    );
  return allNames
    .map((candidate) => ({ candidate, d: distance(candidate) }))
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, count)
    .map((c) => c.candidate);
}

/** Whether `path` is a LangWatch alias (not a Spyglass path) of an evaluator. */
export function isEvaluatorAlias(path: string): boolean {
  return !byPath.has(path) && byAlias.has(path);
}

export type JsonSchema = Record<string, unknown>;

export interface CatalogueEntry {
  path: string;
  /** LangWatch's names of this evaluator, which run it too. */
  aliases: string[];
  name: string;
  description: string;
  category: EvaluatorDefinition['category'];
  /** JSON Schema of `data` (what a request must send). */
  data: JsonSchema;
  /** JSON Schema of `settings`, defaults included. */
  settings: JsonSchema;
  /** The settings used when a request sends none. */
  defaultSettings: Record<string, unknown>;
  /** Variables the server needs for the default settings (a judge's provider key follows settings.model). */
  requiredEnv: string[];
  isCostly: boolean;
  isGuardrail: boolean;
  /** What it calls and needs: an LLM (the judges' provider), another service, server variables. */
  requirements: { llm: boolean; external_service: string | null; env: string[] };
}

/** A catalogue entry as this server can run it: unavailable (and why) while a variable it needs is missing. */
export interface CatalogueAvailability extends CatalogueEntry {
  available: boolean;
  unavailable_reason: string | null;
  /** Custom evaluators: the newest version. */
  version?: number;
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  // "input": what a client sends, so fields with defaults are optional and show their default.
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function describe(definition: EvaluatorDefinition): CatalogueEntry {
  // Checks with a required setting (a regex's pattern) have no complete default.
  const parsedDefaults = definition.settings.safeParse({});
  const defaultSettings = (parsedDefaults.success ? parsedDefaults.data : {}) as Record<string, unknown>;
  const requiredEnv = [...new Set([...definition.requiredEnv, ...(definition.requiredEnvFor?.(defaultSettings) ?? [])])];
  return {
    path: definition.path,
    aliases: [...(EVALUATOR_ALIASES[definition.path] ?? [])],
    name: definition.name,
    description: definition.description,
    category: definition.category,
    data: jsonSchemaOf(definition.data),
    settings: jsonSchemaOf(definition.settings),
    defaultSettings,
    requiredEnv,
    isCostly: definition.isCostly,
    isGuardrail: definition.isGuardrail ?? false,
    requirements: { llm: definition.usesLlm ?? false, external_service: definition.externalService ?? null, env: requiredEnv },
  };
}

let described: CatalogueEntry[] | null = null;

/** The catalogue with what this server's environment lets it run. */
export function catalogueFor(env: Readonly<Record<string, string | undefined>>): CatalogueAvailability[] {
  return catalogue().map((entry) => {
    const notOffered = findEvaluator(entry.path)?.notOffered;
    if (notOffered) return { ...entry, available: false, unavailable_reason: notOffered };
    const missing = entry.requirements.env.filter((v) => !env[v]);
    if (!missing.length) return { ...entry, available: true, unavailable_reason: null };
    const what = entry.requirements.llm
      ? "the judges' model provider: OpenAI, or any OpenAI-compatible server through OPENAI_BASE_URL (set any key if it needs none)"
      : (entry.requirements.external_service ?? 'this evaluator');
    return {
      ...entry,
      available: false,
      unavailable_reason: `Set ${missing.join(' and ')} in the Spyglass server's environment and restart it (${what}).`,
    };
  });
}

/** The catalogue, built once (the schemas never change while the process runs). */
export function catalogue(): CatalogueEntry[] {
  described ??= EVALUATORS.map(describe);
  return described;
}

const VARIABLE_SCHEMAS: Record<string, JsonSchema> = {
  input: { type: 'string', description: 'The user message.' },
  output: { type: 'string', description: 'The assistant reply.' },
  contexts: { type: 'array', items: { type: 'string' }, description: 'Retrieved contexts, in rank order.' },
  expected_output: { type: 'string', description: 'The expected answer (a dataset column).' },
  conversation: { type: 'array', items: { type: 'object', properties: { role: { type: 'string' }, content: { type: 'string' } } }, description: 'The conversation, oldest message first.' },
};

/** A custom evaluator's catalogue entry: its data are its template's variables, its one setting pins a version. */
export function customCatalogueEntry(e: {
  path: string;
  name: string;
  description: string;
  variables: string[];
  version: number;
  available: boolean;
  unavailableReason: string | null;
}): CatalogueAvailability {
  return {
    path: e.path,
    name: e.name,
    description: e.description,
    category: 'custom',
    aliases: [],
    data: {
      type: 'object',
      properties: Object.fromEntries(e.variables.map((v) => [v, VARIABLE_SCHEMAS[v] ?? { type: 'string', description: `The dataset column or data key ${v}, as text.` }])),
      required: e.variables,
    },
    settings: {
      type: 'object',
      properties: { version: { type: 'integer', minimum: 1, description: `Run this version instead of the newest (${e.version})` } },
      additionalProperties: false,
    },
    defaultSettings: {},
    requiredEnv: [],
    isCostly: true,
    isGuardrail: false,
    requirements: { llm: true, external_service: null, env: [] },
    available: e.available,
    unavailable_reason: e.unavailableReason,
    version: e.version,
  };
}
