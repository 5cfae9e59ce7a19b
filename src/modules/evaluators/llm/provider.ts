/**
 * The LLM judges' one way to a model: `settings.model` is `provider/model`, the provider's
 * variables come from `ctx.env`, every call is a forced tool call through the Vercel AI SDK
 * (its arguments are the verdict, validated with zod), and a session adds up token usage so a
 * multi-step judge reports one cost.
 *
 * Providers: `openai`, i.e. the OpenAI API or any OpenAI-compatible chat-completions server
 * through OPENAI_BASE_URL (vLLM, Ollama, LiteLLM, Azure's /openai/v1, ...). Other provider
 * packages are not installed; their names are refused with a 400 on `settings.model`.
 */
import type { LanguageModel, LanguageModelUsage } from 'ai';
import { z } from 'zod';
import { computeCost, estimateTokens } from '../../traces/index.ts';
import { InvalidProviderResponseError, MissingConfigurationError, ProviderError } from '../errors.ts';
import type { EvaluationResult, EvaluatorContext } from '../types.ts';

// Warnings (e.g. "temperature is not supported for reasoning models") go into raw_response,
// not to the console, where they would break the JSON log lines. A value set by the operator wins.
const g = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
if (g.AI_SDK_LOG_WARNINGS === undefined) g.AI_SDK_LOG_WARNINGS = false;

/**
 * The AI SDK and its OpenAI provider are loaded on the first judge call, not at start: they
 * cost ~50 MB and ~0.5 s of CPU, and most servers never run an LLM judge (docs/performance.md: Overload, memory and start).
 */
type Sdk = typeof import('ai') & { createOpenAI: typeof import('@ai-sdk/openai').createOpenAI };
let sdk: Promise<Sdk> | null = null;
const loadSdk = (): Promise<Sdk> =>
  (sdk ??= Promise.all([import('ai'), import('@ai-sdk/openai')]).then(([ai, openai]) => ({ ...ai, createOpenAI: openai.createOpenAI })));

export const DEFAULT_MODEL = 'openai/gpt-4o-mini';
export const SUPPORTED_PROVIDERS = ['openai'] as const;

interface ProviderSpec {
  /** Variables that must be set, with what each is for. */
  required: Array<{ variable: string; why: string }>;
  create(sdk: Sdk, modelId: string, ctx: EvaluatorContext): LanguageModel;
}

const PROVIDERS: Record<(typeof SUPPORTED_PROVIDERS)[number], ProviderSpec> = {
  openai: {
    required: [
      {
        variable: 'OPENAI_API_KEY',
        why: 'openai/* judge models need an API key (for an OpenAI-compatible server without authentication, set any value and point OPENAI_BASE_URL at it)',
      },
    ],
    create: (sdk, modelId, ctx) =>
      sdk.createOpenAI({
        apiKey: ctx.env.OPENAI_API_KEY,
        baseURL: ctx.env.OPENAI_BASE_URL || undefined,
        organization: ctx.env.OPENAI_ORGANIZATION || undefined,
        project: ctx.env.OPENAI_PROJECT || undefined,
        fetch: ctx.fetch,
      }).chat(modelId),
  },
};

export function splitModel(model: string): { provider: string; modelId: string } {
  const slash = model.indexOf('/');
  return { provider: model.slice(0, slash), modelId: model.slice(slash + 1) };
}

/** `settings.model` of every judge. The model id may itself contain slashes (meta-llama/...). */
export const modelSetting = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/\S+$/, 'must be provider/model, e.g. openai/gpt-4o-mini')
  .refine((m) => (SUPPORTED_PROVIDERS as readonly string[]).includes(splitModel(m).provider), {
    message: `unsupported provider; use ${SUPPORTED_PROVIDERS.map((p) => `${p}/<model>`).join(' or ')} (any OpenAI-compatible server through OPENAI_BASE_URL)`,
  })
  .default(DEFAULT_MODEL)
  .describe('The judge model as provider/model. openai/* reaches the OpenAI API or any OpenAI-compatible server set in OPENAI_BASE_URL.');

/** langevals' `max_tokens`: the most tokens of content the judge may be sent; above it the entry is skipped. */
export function maxTokensSetting(defaultValue: number) {
  return z
    .number()
    .int()
    .positive()
    .default(defaultValue)
    .describe('The most tokens of content the judge may be sent (a higher number can be costly); entries above it are skipped.');
}

export function requiredEnvForModel(model: string): string[] {
  const spec = PROVIDERS[splitModel(model).provider as keyof typeof PROVIDERS];
  return spec ? spec.required.map((r) => r.variable) : [];
}

export function missingModelEnv(model: string, env: EvaluatorContext['env']): MissingConfigurationError | null {
  const spec = PROVIDERS[splitModel(model).provider as keyof typeof PROVIDERS];
  const missing = spec?.required.find((r) => !env[r.variable]);
  return missing ? new MissingConfigurationError(missing.variable, missing.why) : null;
}

/** A skipped result when `text` is longer than `maxTokens` tokens for `model`, else null. */
export function skipIfTooLong(text: string, model: string, maxTokens: number): EvaluationResult | null {
  const tokens = estimateTokens(text, splitModel(model).modelId);
  if (tokens <= maxTokens) return null;
  return { status: 'skipped', details: `Total tokens exceed the maximum of ${maxTokens}: ${tokens}` };
}

export interface ToolSpec<T extends z.ZodType> {
  name: string;
  description: string;
  input: T;
}

export interface JudgeCall<T extends z.ZodType> {
  system?: string;
  prompt: string;
  tool: ToolSpec<T>;
  /** Cap on the answer's tokens (langevals: 1024 for its classifiers). */
  maxOutputTokens?: number;
}

export interface UsageTotals {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
}

/**
 * One evaluation's conversation with its judge model: each `call` is a forced tool call, and
 * the usage of all calls adds up into one cost.
 */
export class JudgeSession {
  readonly provider: string;
  readonly modelId: string;
  readonly usage: UsageTotals = { calls: 0, prompt_tokens: 0, completion_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 };
  readonly warnings: string[] = [];
  private model: LanguageModel | null = null;

  constructor(
    model: string,
    private readonly ctx: EvaluatorContext,
  ) {
    ({ provider: this.provider, modelId: this.modelId } = splitModel(model));
    const missing = missingModelEnv(model, ctx.env);
    if (missing) throw missing;
  }

  /** The AI SDK, loaded on first use, and this judge's model made with it. */
  private async sdk(): Promise<{ ai: Sdk; model: LanguageModel }> {
    const ai = await loadSdk();
    this.model ??= PROVIDERS[this.provider as keyof typeof PROVIDERS].create(ai, this.modelId, this.ctx);
    return { ai, model: this.model };
  }

  async call<T extends z.ZodType>(call: JudgeCall<T>): Promise<z.output<T>> {
    const { name, description, input } = call.tool;
    const { ai, model } = await this.sdk();
    let result;
    try {
      result = await ai.generateText({
        model,
        system: call.system,
        prompt: call.prompt,
        tools: { [name]: ai.tool({ description, inputSchema: input }) },
        toolChoice: { type: 'tool', toolName: name },
        temperature: 0,
        maxOutputTokens: call.maxOutputTokens,
        maxRetries: this.ctx.maxRetries,
        abortSignal: this.ctx.signal,
      });
    } catch (err) {
      throw toProviderError(ai, err, this.ctx.signal);
    }
    this.addUsage(result.usage);
    for (const w of result.warnings ?? []) this.warnings.push(JSON.stringify(w));

    const toolCall = result.toolCalls.find((c) => c.toolName === name);
    if (!toolCall) {
      throw new InvalidProviderResponseError(
        `the judge model answered without calling the ${name} tool (finish reason: ${result.finishReason})`,
      );
    }
    if ('invalid' in toolCall && toolCall.invalid) {
      const why = toolCall.error instanceof Error ? toolCall.error.message : String(toolCall.error);
      throw new InvalidProviderResponseError(`the judge model called ${name} with arguments that do not fit its schema: ${why}`, {
        cause: toolCall.error,
      });
    }
    // The SDK validated the arguments against `input`; parse again to get zod's output type.
    const parsed = input.safeParse(toolCall.input);
    if (!parsed.success) {
      throw new InvalidProviderResponseError(`the judge model called ${name} with invalid arguments: ${parsed.error.message}`);
    }
    return parsed.data;
  }

  /** A plain chat completion, no tool (the prompts' "Try it"); its usage adds up like a call's. */
  async chat(
    messages: { role: 'system' | 'user' | 'assistant'; content: string }[],
    jsonSchema?: { name: string; schema: Record<string, unknown> },
  ): Promise<{ text: string; responseModel: string }> {
    const { ai, model } = await this.sdk();
    // A JSON Schema output goes as response_format, as written (not "strict": the author's
    // schema need not meet OpenAI's strict-mode rules); the answer stays text, parsed by no one here.
    const output = jsonSchema
      ? { ...ai.Output.text(), responseFormat: Promise.resolve({ type: 'json' as const, schema: jsonSchema.schema, name: jsonSchema.name }) }
      : undefined;
    let result;
    try {
      // The prompt's author wrote its system messages: no injection risk to warn about (on stderr).
      result = await ai.generateText({
        model,
        messages,
        allowSystemInMessages: true,
        maxRetries: this.ctx.maxRetries,
        abortSignal: this.ctx.signal,
        ...(output ? { output, providerOptions: { openai: { strictJsonSchema: false } } } : {}),
      });
    } catch (err) {
      throw toProviderError(ai, err, this.ctx.signal);
    }
    this.addUsage(result.usage);
    return { text: result.text, responseModel: result.response?.modelId || this.modelId };
  }

  private addUsage(usage: LanguageModelUsage): void {
    this.usage.calls++;
    this.usage.prompt_tokens += usage.inputTokens ?? 0;
    this.usage.completion_tokens += usage.outputTokens ?? 0;
    this.usage.cached_input_tokens += usage.inputTokenDetails?.cacheReadTokens ?? 0;
    this.usage.reasoning_tokens += usage.outputTokenDetails?.reasoningTokens ?? 0;
  }

  /** USD from the shared price table; undefined when the model is not in it. */
  cost(): EvaluationResult['cost'] {
    const cost = computeCost({
      model: this.modelId,
      vendor: this.provider,
      promptTokens: this.usage.prompt_tokens,
      completionTokens: this.usage.completion_tokens,
      cachedInputTokens: this.usage.cached_input_tokens,
      reasoningTokens: this.usage.reasoning_tokens,
    });
    return cost ? { currency: cost.currency, amount: cost.amount } : undefined;
  }

  /** What every judge puts in raw_response: the model, the usage and any SDK warnings. */
  report(): Record<string, unknown> {
    return {
      model: `${this.provider}/${this.modelId}`,
      usage: { ...this.usage },
      ...(this.warnings.length ? { warnings: this.warnings } : {}),
    };
  }
}

/** Provider failures in the SDK's shapes -> ProviderError with the HTTP status and the provider's message. */
function toProviderError(ai: Sdk, err: unknown, signal?: AbortSignal): unknown {
  const { APICallError, RetryError, ToolChoiceViolationError, InvalidToolInputError, NoSuchToolError, JSONParseError, TypeValidationError, InvalidResponseDataError, NoContentGeneratedError } = ai;
  // A deadline is the runner's to report.
  if (signal?.aborted) return signal.reason ?? err;
  const last = RetryError.isInstance(err) ? err.lastError : err;
  const attempts = RetryError.isInstance(err) ? ` after ${err.errors.length} attempts` : '';
  if (APICallError.isInstance(last)) {
    const where = safeOrigin(last.url);
    if (last.statusCode) {
      return new ProviderError(
        `the model provider (${where}) answered HTTP ${last.statusCode}${attempts}: ${truncate(last.message, 500)}`,
        last.statusCode,
        { cause: last },
      );
    }
    return new ProviderError(`the model provider (${where}) could not be reached${attempts}: ${truncate(last.message, 500)}`, undefined, {
      cause: last,
    });
  }
  // 2xx answers the SDK could not use: no forced tool call, unparsable JSON, a wrong shape.
  if (
    ToolChoiceViolationError.isInstance(last) ||
    InvalidToolInputError.isInstance(last) ||
    NoSuchToolError.isInstance(last) ||
    JSONParseError.isInstance(last) ||
    TypeValidationError.isInstance(last) ||
    InvalidResponseDataError.isInstance(last) ||
    NoContentGeneratedError.isInstance(last)
  ) {
    return new InvalidProviderResponseError(`the judge model's answer cannot be used: ${truncate((last as Error).message, 500)}`, { cause: last });
  }
  return err;
}

function safeOrigin(url: string): string {
  try {
    const u = new URL(url);
    return u.origin + u.pathname;
  } catch {
    return 'unknown address';
  }
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

/** A provider and model from a prompt's `model`: `provider/model`, or a bare model id meaning `openai/<model>`. */
export function resolveChatModel(model: string): { provider: string; modelId: string } | null {
  const { provider, modelId } = model.includes('/') ? splitModel(model) : { provider: 'openai', modelId: model };
  return (SUPPORTED_PROVIDERS as readonly string[]).includes(provider) && modelId ? { provider, modelId } : null;
}

export interface ChatCompletion {
  text: string;
  /** The model the provider says answered (a dated snapshot, often), else the one asked for. */
  responseModel: string;
  usage: Omit<UsageTotals, 'calls'>;
  cost: EvaluationResult['cost'];
}

/**
 * One plain chat completion through the judges' provider and price table (a prompt's
 * "Try it"). Throws MissingConfigurationError, ProviderError or InvalidProviderResponseError.
 */
export async function completeChat(
  model: { provider: string; modelId: string },
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[],
  ctx: EvaluatorContext,
  /** A JSON Schema the answer must follow: sent as response_format (type json_schema). */
  jsonSchema?: { name: string; schema: Record<string, unknown> },
): Promise<ChatCompletion> {
  const session = new JudgeSession(`${model.provider}/${model.modelId}`, ctx);
  const { text, responseModel } = await session.chat(messages, jsonSchema);
  const { calls: _calls, ...usage } = session.usage;
  return { text, responseModel, usage, cost: session.cost() };
}
