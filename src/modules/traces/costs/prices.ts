/**
 * Model prices and the cost of one LLM call.
 *
 * The prices live in model-prices.json (USD per 1M tokens, with the date they were compiled and
 * where each one came from: Langfuse's and LiteLLM's published tables).
 *
 * Token-count conventions. This is where cost calculators usually go wrong, so read it before
 * mapping a provider's usage block into CostInput:
 *
 *  - promptTokens INCLUDES cache reads and cache writes. That is OpenAI's `prompt_tokens`
 *    (with `prompt_tokens_details.cached_tokens` inside it) and OTel's
 *    `gen_ai.usage.input_tokens`. Uncached input = prompt - cachedInput - cacheWrite.
 *      Anthropic's native `usage.input_tokens` EXCLUDES `cache_read_input_tokens` and
 *      `cache_creation_input_tokens`: a mapper must add both to it.
 *      Gemini's `promptTokenCount` already includes `cachedContentTokenCount`.
 *  - completionTokens INCLUDES reasoning tokens. That is OpenAI's `completion_tokens` (with
 *    `completion_tokens_details.reasoning_tokens` inside it) and OTel's
 *    `gen_ai.usage.output_tokens`. Visible output = completion - reasoning.
 *      Gemini's `candidatesTokenCount` EXCLUDES `thoughtsTokenCount`: a mapper must add it.
 *  - Reasoning tokens are billed at the entry's `reasoning` price when it has one, else at
 *    `output`. Cache reads are billed at `cached_input`; cache writes at `cache_write_input`
 *    when the entry has one, else at `input` (OpenAI and Gemini do not charge extra for writes).
 *  - A count that is null, undefined, negative or not a finite number counts as 0; fractions
 *    are rounded. When the parts exceed the whole (cached + writes > prompt, reasoning >
 *    completion) the remainder is 0 and the parts are billed as reported, so a cost is never
 *    negative and never silently drops tokens the provider said it used.
 *
 * Arithmetic: every table price is a whole number of pico-dollars (1e-12 USD) per token (USD per
 * 1M tokens x 1e6; checked when the table loads), so each part is an exact BigInt product and
 * the USD numbers are produced once, at the end. No float error enters the per-call amount, and
 * sumCostAmounts adds amounts back in pico-dollars so a trace's total does not drift either.
 */
import { z } from 'zod';
import rawTable from './model-prices.json' with { type: 'json' };

export interface ModelPrice {
  /** Canonical model id, e.g. "gpt-4o-mini". */
  readonly model: string;
  /** Regex source, anchored and case-insensitive, tested against the normalized name. */
  readonly match: string;
  readonly provider: string;
  /** USD per 1M uncached input tokens. */
  readonly input: number;
  /** USD per 1M input tokens read from the prompt cache. */
  readonly cached_input: number;
  /** USD per 1M input tokens written to the prompt cache (Anthropic, 5-minute TTL). */
  readonly cache_write_input?: number;
  /** USD per 1M visible output tokens. */
  readonly output: number;
  /** USD per 1M reasoning tokens; absent means billed at `output`. */
  readonly reasoning?: number;
  readonly source: string;
  readonly notes?: string;
}

export interface CostInput {
  model: string | null | undefined;
  /** Provider or OTel `gen_ai.system` (openai, anthropic, aws.bedrock, gcp.vertex_ai, groq, ...). */
  vendor?: string | null;
  /** All input tokens, cache reads and cache writes included. */
  promptTokens?: number | null;
  /** All output tokens, reasoning tokens included. */
  completionTokens?: number | null;
  /** Input tokens read from the prompt cache (part of promptTokens). */
  cachedInputTokens?: number | null;
  /** Input tokens written to the prompt cache (part of promptTokens). */
  cacheWriteTokens?: number | null;
  /** Reasoning/thinking tokens (part of completionTokens). */
  reasoningTokens?: number | null;
}

/** USD per part. `cache_write_input` is 0 unless cache writes were reported. */
export interface CostBreakdown {
  input: number;
  cached_input: number;
  cache_write_input: number;
  output: number;
  reasoning: number;
}

export interface Cost {
  amount: number;
  currency: 'USD';
  breakdown: CostBreakdown;
  /** Canonical id of the table entry that priced the call. */
  priceModel: string;
}

const usdPerMillion = z.number().finite().nonnegative();
const entrySchema = z
  .object({
    model: z.string().min(1),
    match: z.string().min(1),
    provider: z.string().min(1),
    input: usdPerMillion,
    cached_input: usdPerMillion,
    cache_write_input: usdPerMillion.optional(),
    output: usdPerMillion,
    reasoning: usdPerMillion.optional(),
    source: z.string().min(1),
    notes: z.string().optional(),
  })
  .strict();
const tableSchema = z
  .object({
    updatedAt: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    unit: z.literal('USD per 1M tokens'),
    source: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    models: z.array(entrySchema).min(1),
  })
  .strict();

const table = tableSchema.parse(rawTable);

interface PicoPrices {
  input: bigint;
  cachedInput: bigint;
  cacheWrite: bigint;
  output: bigint;
  reasoning: bigint;
}

interface CompiledPrice {
  price: ModelPrice;
  pattern: RegExp;
  pico: PicoPrices;
}

function picoPerToken(usdPerMillionTokens: number, model: string, field: string): bigint {
  const pico = usdPerMillionTokens * 1e6;
  const whole = Math.round(pico);
  if (Math.abs(pico - whole) > 1e-6) {
    throw new Error(
      `model-prices.json: ${model}.${field} = ${usdPerMillionTokens} is not a whole number of pico-dollars per token`,
    );
  }
  return BigInt(whole);
}

const compiled: readonly CompiledPrice[] = table.models.map((entry) => {
  const price: ModelPrice = Object.freeze({ ...entry });
  return {
    price,
    pattern: new RegExp(`^(?:${entry.match})$`, 'i'),
    pico: {
      input: picoPerToken(entry.input, entry.model, 'input'),
      cachedInput: picoPerToken(entry.cached_input, entry.model, 'cached_input'),
      cacheWrite: picoPerToken(entry.cache_write_input ?? entry.input, entry.model, 'cache_write_input'),
      output: picoPerToken(entry.output, entry.model, 'output'),
      reasoning: picoPerToken(entry.reasoning ?? entry.output, entry.model, 'reasoning'),
    },
  };
});

/** The whole table, in file order. */
export function listModelPrices(): readonly ModelPrice[] {
  return compiled.map((c) => c.price);
}

/** When the table was compiled and where its facts come from. */
export const priceTableInfo: { readonly updatedAt: string; readonly source: Readonly<Record<string, string | string[]>> } =
  Object.freeze({ updatedAt: table.updatedAt, source: table.source });

// Bedrock ids: [region.]vendor.model[-vN:M], e.g. us.anthropic.claude-3-5-sonnet-20241022-v2:0.
const BEDROCK_PREFIX =
  /^(?:(?:us|eu|apac|ap|jp|au|ca|global|us-gov)\.)?(?:anthropic|meta|mistral|amazon|cohere|deepseek|ai21|openai|google|qwen|moonshotai?)\./;

/**
 * Lower-cases a model name and removes what does not identify the model: a provider or path
 * prefix (openai/gpt-4o, models/gemini-2.0-flash, projects/../models/.., Bedrock ARNs), a Bedrock
 * region and vendor prefix; Vertex's "@" version separator becomes "-". Fine-tuned models
 * ("ft:...") are billed differently from their base model and give null.
 */
export function normalizeModelName(name: string | null | undefined): string | null {
  if (typeof name !== 'string') return null;
  let s = name.trim().toLowerCase();
  if (s === '' || s.startsWith('ft:')) return null;
  s = s.slice(s.lastIndexOf('/') + 1);
  s = s.replace(BEDROCK_PREFIX, '').replace('@', '-');
  return s === '' ? null : s;
}

// Tried one at a time, each on the result of the previous strip, when the name itself matches
// nothing: snapshots usually cost what their alias costs. Snapshots priced differently
// (gpt-4o-2024-05-13, gpt-3.5-turbo-1106, mistral-large-2411, ...) have their own entries, and
// an exact match always wins over a stripped one.
const TRAILING_VERSION: readonly RegExp[] = [
  /-\d{4}-\d{2}-\d{2}$/, // OpenAI snapshot: gpt-4o-2024-08-06
  /-\d{8}$/, // Anthropic snapshot: claude-3-5-sonnet-20241022
  /-v\d+(?::\d+)?$/, // Bedrock version -v1:0, Vertex claude-3-5-sonnet-v2
  /-latest$/,
  /-\d{3,4}$/, // gpt-4-0613, gemini-1.5-flash-002
];

/**
 * The names a search for a model should find it by: its normalized name and the names of
 * its family (a dated or numbered snapshot without its suffix), so a filter on
 * `gpt-4o-mini` finds the spans whose response model was `gpt-4o-mini-2024-07-18` and
 * one on `openai/gpt-4o-mini` finds both.
 */
export function modelSearchNames(name: string | null | undefined): string[] {
  const normalized = normalizeModelName(name);
  if (normalized !== null) return nameVariants(normalized);
  const canonical = canonicalModelName(name);
  return canonical === null ? [] : [canonical];
}

/**
 * The name search and analytics use for a model: its normalized name, or for a model the price
 * table never matches by design (fine-tunes, `ft:...`) the whole name, lower-cased.
 */
export function canonicalModelName(name: string | null | undefined): string | null {
  if (typeof name !== 'string') return null;
  return normalizeModelName(name) ?? (name.trim().toLowerCase() || null);
}

// Provider prefixes of the `provider/model` form (LiteLLM's, the LangWatch SDKs', this
// project's LLM judges'). Only these: in `meta-llama/Llama-3-8b` the prefix is an organization.
const PROVIDER_PREFIXES: ReadonlySet<string> = new Set([
  'openai', 'azure', 'azure_ai', 'anthropic', 'google', 'gemini', 'vertex_ai', 'vertexai', 'bedrock', 'mistral',
  'mistralai', 'groq', 'deepseek', 'cohere', 'xai', 'ollama', 'openrouter', 'together_ai', 'fireworks_ai',
  'perplexity', 'cerebras',
]);

/** `openai` of `openai/gpt-4o-mini`; null when the name has no known provider prefix. */
export function providerPrefix(name: string | null | undefined): string | null {
  if (typeof name !== 'string') return null;
  const slash = name.indexOf('/');
  if (slash <= 0) return null;
  const prefix = name.slice(0, slash).trim().toLowerCase();
  return PROVIDER_PREFIXES.has(prefix) ? prefix : null;
}

function nameVariants(normalized: string): string[] {
  const variants = [normalized];
  let current = normalized;
  for (let i = 0; i < 3; i++) {
    const re = TRAILING_VERSION.find((r) => r.test(current));
    if (!re) break;
    current = current.replace(re, '');
    if (current === '') break;
    variants.push(current);
  }
  return variants;
}

const VENDOR_ALIASES: Readonly<Record<string, string>> = {
  openai: 'openai',
  azure: 'openai',
  azure_openai: 'openai',
  'az.ai.openai': 'openai',
  'azure.ai.openai': 'openai',
  anthropic: 'anthropic',
  google: 'google',
  gemini: 'google',
  'gcp.gemini': 'google',
  'gcp.vertex_ai': 'google',
  vertex_ai: 'google',
  vertexai: 'google',
  mistral: 'mistral',
  mistralai: 'mistral',
  mistral_ai: 'mistral',
  deepseek: 'deepseek',
  groq: 'groq',
};

function normalizeVendor(vendor: string | null | undefined): string | null {
  if (typeof vendor !== 'string') return null;
  const v = vendor.trim().toLowerCase();
  if (v === '') return null;
  return VENDOR_ALIASES[v] ?? v;
}

// Entries that are one host's price for an open-weight model. Another host's call to the same
// model is left unpriced rather than priced at a stranger's rate; with no vendor they apply.
const HOST_PRICED_PROVIDERS: ReadonlySet<string> = new Set(['groq']);

function pick(name: string, vendor: string | null): CompiledPrice | null {
  let best: CompiledPrice | null = null;
  for (const c of compiled) {
    if (!c.pattern.test(name)) continue;
    if (vendor !== null && HOST_PRICED_PROVIDERS.has(c.price.provider) && c.price.provider !== vendor) continue;
    if (best === null || isMoreSpecific(c, best, vendor)) best = c;
  }
  return best;
}

// Patterns are anchored, so overlaps are rare (the table's tests check there are none for the
// canonical names); when two entries do match, the one from the caller's vendor and then the
// longer canonical id wins.
function isMoreSpecific(a: CompiledPrice, b: CompiledPrice, vendor: string | null): boolean {
  if (vendor !== null) {
    const aVendor = a.price.provider === vendor;
    const bVendor = b.price.provider === vendor;
    if (aVendor !== bVendor) return aVendor;
  }
  return a.price.model.length > b.price.model.length;
}

const LOOKUP_CACHE_LIMIT = 4096;
const lookupCache = new Map<string, CompiledPrice | null>();

function lookup(model: string | null | undefined, vendor: string | null | undefined): CompiledPrice | null {
  if (typeof model !== 'string') return null;
  const vendorKey = normalizeVendor(vendor);
  const key = `${vendorKey ?? ''}\u0000${model}`;
  const cached = lookupCache.get(key);
  if (cached !== undefined) return cached;

  let found: CompiledPrice | null = null;
  const normalized = normalizeModelName(model);
  if (normalized !== null) {
    for (const variant of nameVariants(normalized)) {
      found = pick(variant, vendorKey);
      if (found) break;
    }
  }
  if (lookupCache.size >= LOOKUP_CACHE_LIMIT) lookupCache.clear();
  lookupCache.set(key, found);
  return found;
}

/** The table entry that prices `model`, or null when the model is unknown. */
export function findModelPrice(model: string | null | undefined, vendor?: string | null): ModelPrice | null {
  return lookup(model, vendor)?.price ?? null;
}

function tokenCount(value: number | null | undefined): bigint {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return 0n;
  return BigInt(Math.round(value));
}

const PICO_PER_USD = 1e12;

function picoToUsd(pico: bigint): number {
  return Number(pico) / PICO_PER_USD;
}

function clampToZero(value: bigint): bigint {
  return value > 0n ? value : 0n;
}

/**
 * The cost of one call in USD, split by kind of token; null when the model is not in the table.
 * See the top of this file for what each count must contain.
 */
export function computeCost(input: CostInput): Cost | null {
  const entry = lookup(input.model, input.vendor);
  if (!entry) return null;

  const prompt = tokenCount(input.promptTokens);
  const completion = tokenCount(input.completionTokens);
  const cachedInput = tokenCount(input.cachedInputTokens);
  const cacheWrite = tokenCount(input.cacheWriteTokens);
  const reasoning = tokenCount(input.reasoningTokens);

  const uncachedInput = clampToZero(prompt - cachedInput - cacheWrite);
  const visibleOutput = clampToZero(completion - reasoning);

  const p = entry.pico;
  const parts = {
    input: uncachedInput * p.input,
    cached_input: cachedInput * p.cachedInput,
    cache_write_input: cacheWrite * p.cacheWrite,
    output: visibleOutput * p.output,
    reasoning: reasoning * p.reasoning,
  };
  const total = parts.input + parts.cached_input + parts.cache_write_input + parts.output + parts.reasoning;

  return {
    amount: picoToUsd(total),
    currency: 'USD',
    breakdown: {
      input: picoToUsd(parts.input),
      cached_input: picoToUsd(parts.cached_input),
      cache_write_input: picoToUsd(parts.cache_write_input),
      output: picoToUsd(parts.output),
      reasoning: picoToUsd(parts.reasoning),
    },
    priceModel: entry.price.model,
  };
}

/**
 * Adds USD amounts (e.g. span costs into a trace cost) in whole pico-dollars, so summing
 * thousands of calls gives the same result in any order. null/undefined/non-finite are skipped.
 */
export function sumCostAmounts(amounts: Iterable<number | null | undefined>): number {
  let total = 0n;
  for (const amount of amounts) {
    if (typeof amount !== 'number' || !Number.isFinite(amount)) continue;
    total += BigInt(Math.round(amount * PICO_PER_USD));
  }
  return picoToUsd(total);
}
