/**
 * Every evaluator of the spec's Evaluators table, by path, and how the catalogue route
 * describes each one (JSON Schemas from the same zod schemas that validate requests).
 */
import { z } from 'zod';
import { jailbreak } from './cloud/jailbreak.ts';
import { ragFaithfulness } from './legacy/rag-faithfulness.ts';
import { competitorBlocklist } from './llm/competitor-blocklist.ts';
import { competitorLlmFunctionCall } from './llm/competitor-llm-function-call.ts';
import { llmCategory } from './llm/llm-category.ts';
import { llmScore } from './llm/llm-score.ts';
import { offTopic } from './llm/off-topic.ts';
import { queryResolution } from './llm/query-resolution.ts';
import { piiDetection } from './pii/index.ts';
import { contextPrecisionEvaluator, contextRecallEvaluator } from './rag/index.ts';
import { summarizationScore } from './rag/summarization-score.ts';
import type { EvaluatorDefinition } from './types.ts';

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
] as readonly EvaluatorDefinition[];

const byPath = new Map(EVALUATORS.map((e) => [e.path, e]));

export function findEvaluator(path: string): EvaluatorDefinition | undefined {
  return byPath.get(path);
}

export type JsonSchema = Record<string, unknown>;

export interface CatalogueEntry {
  path: string;
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
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  // "input": what a client sends, so fields with defaults are optional and show their default.
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function describe(definition: EvaluatorDefinition): CatalogueEntry {
  const defaultSettings = definition.settings.parse({}) as Record<string, unknown>;
  const requiredEnv = [...new Set([...definition.requiredEnv, ...(definition.requiredEnvFor?.(defaultSettings) ?? [])])];
  return {
    path: definition.path,
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
