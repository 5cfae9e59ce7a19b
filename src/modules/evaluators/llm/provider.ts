/**
 * The LLM judges' one way to a model: `settings.model` is `provider/model`. The provider is
 * one set in the app (model-providers: OpenAI, any OpenAI-compatible server, Azure OpenAI,
 * Anthropic; the evaluation service resolves it into `ctx.providers`) or, as the fallback,
 * `openai` from the server's environment (OPENAI_API_KEY, OPENAI_BASE_URL). Every judge call
 * is a forced tool call (its arguments are the verdict, validated with zod), and a session
 * adds up token usage so a multi-step judge reports one cost.
 */
import type { JSONSchema7, LanguageModelUsage } from 'ai';
import { z } from 'zod';
import { computeCost, estimateTokens, sumCostAmounts } from '../../traces/index.ts';
import { EvaluatorError, InvalidProviderResponseError, MissingConfigurationError, ProviderError } from '../errors.ts';
import { anthropicChat, anthropicToolCall } from './anthropic.ts';
import type { ChatEvent, ChatParameters, JudgeCall, ProviderConfig, ToolCallEvent } from './call-types.ts';
import type { EvaluationResult, EvaluatorContext } from '../types.ts';

export type { ChatEvent, ChatParameters, JudgeCall, ProviderConfig, ProviderKind, ToolCallEvent, ToolSpec } from './call-types.ts';

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
/** A chat model of the SDK's providers, and the usage it reports for one answer (before the SDK reads the answer). */
type ChatModel = ReturnType<ReturnType<Sdk['createOpenAI']>['chat']>;
type AnswerUsage = Awaited<ReturnType<ChatModel['doGenerate']>>['usage'];
const loadSdk = (): Promise<Sdk> =>
  (sdk ??= Promise.all([import('ai'), import('@ai-sdk/openai')]).then(([ai, openai]) => ({ ...ai, createOpenAI: openai.createOpenAI })));

export const DEFAULT_MODEL = 'openai/gpt-4o-mini';
/** The provider names that work from the server's environment alone (the fallback). */
export const SUPPORTED_PROVIDERS = ['openai'] as const;

/** The AI SDK provider of a provider set in the app (every kind but Anthropic, which is called directly). */
function storedProvider(sdk: Sdk, config: ProviderConfig, ctx: EvaluatorContext) {
  if (config.kind === 'azure_openai') {
    // Azure's v1 API: the OpenAI wire format under <resource>/openai/v1, the key in an api-key header.
    const base = (config.baseUrl ?? '').replace(/\/+$/, '');
    const fetchWithKey: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.delete('authorization');
      headers.set('api-key', config.apiKey);
      return ctx.fetch(input, { ...init, headers });
    };
    return sdk.createOpenAI({ apiKey: 'azure', baseURL: base.endsWith('/openai/v1') ? base : `${base}/openai/v1`, fetch: fetchWithKey });
  }
  // A server without authentication has no key: no Authorization header at all (an empty Bearer is refused by some).
  const fetchWithoutKey: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    return ctx.fetch(input, { ...init, headers });
  };
  return sdk.createOpenAI({ apiKey: config.apiKey, baseURL: config.baseUrl || undefined, fetch: config.apiKey ? ctx.fetch : fetchWithoutKey });
}

/**
 * The model ids a provider lists itself: GET <base>/models, the OpenAI shape ({data: [{id}]})
 * that OpenAI, OpenAI-compatible servers (vLLM, Ollama, LM Studio), Azure's v1 API and
 * Anthropic all answer. Throws ProviderError with the status for a refusal.
 */
export async function listProviderModels(config: ProviderConfig, fetchImpl: typeof fetch, signal: AbortSignal): Promise<string[]> {
  const base = (config.baseUrl ?? '').replace(/\/+$/, '');
  const headers: Record<string, string> = { accept: 'application/json' };
  let url: string;
  if (config.kind === 'anthropic') {
    url = `${base || 'https://api.anthropic.com'}${base.endsWith('/v1') ? '' : '/v1'}/models?limit=1000`;
    headers['x-api-key'] = config.apiKey;
    headers['anthropic-version'] = '2023-06-01';
  } else if (config.kind === 'azure_openai') {
    url = `${base.endsWith('/openai/v1') ? base : `${base}/openai/v1`}/models`;
    headers['api-key'] = config.apiKey;
  } else {
    url = `${base || 'https://api.openai.com/v1'}/models`;
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  }
  let res: Response;
  try {
    res = await fetchImpl(url, { headers, signal });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw new ProviderError(`the provider at ${new URL(url).origin} could not be reached (${(err as Error).message})`);
  }
  const text = await res.text();
  if (!res.ok) throw new ProviderError(`the provider answered ${res.status} to GET ${new URL(url).pathname}: ${text.slice(0, 300)}`, res.status);
  const listed = z.object({ data: z.array(z.object({ id: z.string() })) }).safeParse((() => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  })());
  if (!listed.success) throw new InvalidProviderResponseError(`GET ${new URL(url).pathname} did not answer a list of models ({data: [{id}]})`);
  return listed.data.data.map((m) => m.id);
}

interface ProviderSpec {
  /** Variables that must be set, with what each is for. */
  required: Array<{ variable: string; why: string }>;
  create(sdk: Sdk, ctx: EvaluatorContext): ReturnType<Sdk['createOpenAI']>;
}

const PROVIDERS: Record<(typeof SUPPORTED_PROVIDERS)[number], ProviderSpec> = {
  openai: {
    required: [
      {
        variable: 'OPENAI_API_KEY',
        why: 'openai/* judge models need an API key (for an OpenAI-compatible server without authentication, set any value and point OPENAI_BASE_URL at it)',
      },
    ],
    create: (sdk, ctx) =>
      sdk.createOpenAI({
        apiKey: ctx.env.OPENAI_API_KEY,
        baseURL: ctx.env.OPENAI_BASE_URL || undefined,
        organization: ctx.env.OPENAI_ORGANIZATION || undefined,
        project: ctx.env.OPENAI_PROJECT || undefined,
        fetch: ctx.fetch,
      }),
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
  .default(DEFAULT_MODEL)
  .describe(
    "The judge model as provider/model: provider is the name of a model provider set in the app (GET /api/model-providers/models lists the models), or openai from the server's environment (OPENAI_API_KEY, OPENAI_BASE_URL).",
  );

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

export interface UsageTotals {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
}

/** Prices are per vendor, whatever name the provider was given in the app. */
function vendorOf(provider: string, stored: ProviderConfig | null): string {
  return stored ? (stored.kind === 'anthropic' ? 'anthropic' : 'openai') : provider;
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
  private model: ChatModel | null = null;
  /** Tokens sent to embeddings models, by model (reported apart from the judge's usage, priced at the model's own price). */
  private readonly embeddingTokens = new Map<string, { vendor: string; modelId: string; tokens: number }>();
  /** The provider set in the app this judge uses; null: the server's environment. */
  private readonly stored: ProviderConfig | null;

  constructor(
    model: string,
    private readonly ctx: EvaluatorContext,
  ) {
    ({ provider: this.provider, modelId: this.modelId } = splitModel(model));
    this.stored = resolveProvider(model, ctx);
  }

  /** The AI SDK, loaded on first use, and this judge's model made with it. */
  private async sdk(): Promise<{ ai: Sdk; model: ChatModel }> {
    const ai = await loadSdk();
    this.model ??= sdkProvider(ai, this.provider, this.stored, this.ctx).chat(this.modelId);
    return { ai, model: this.model };
  }

  /**
   * Embeddings of `texts` by `embeddingsModel` (provider/model, resolved like a judge model:
   * OpenAI's `/embeddings` or any server answering in its shape). Their tokens add up in the
   * session's usage (as prompt tokens of their own count, `embedding_tokens`).
   */
  async embed(embeddingsModel: string, texts: string[]): Promise<number[][]> {
    const { provider, modelId } = splitModel(embeddingsModel);
    const stored = resolveProvider(embeddingsModel, this.ctx);
    if (stored?.kind === 'anthropic') {
      throw new EvaluatorError('InvalidConfiguration', `the model provider ${provider} (Anthropic) has no embeddings; set embeddings_model to an OpenAI or OpenAI-compatible provider's model`);
    }
    const ai = await loadSdk();
    try {
      const result = await ai.embedMany({
        model: sdkProvider(ai, provider, stored, this.ctx).embedding(modelId),
        values: texts,
        maxRetries: this.ctx.maxRetries,
        abortSignal: this.ctx.signal,
      });
      const spent = this.embeddingTokens.get(embeddingsModel) ?? { vendor: vendorOf(provider, stored), modelId, tokens: 0 };
      spent.tokens += result.usage?.tokens ?? 0;
      this.embeddingTokens.set(embeddingsModel, spent);
      if (result.embeddings.length !== texts.length || result.embeddings.some((e) => e.length === 0)) {
        throw new InvalidProviderResponseError(`the embeddings model answered ${result.embeddings.length} embeddings for ${texts.length} texts`);
      }
      return result.embeddings;
    } catch (err) {
      throw this.redacted(toProviderError(ai, err, this.ctx.signal));
    }
  }

  /** A provider's failure, with its key taken out of every message (a server may echo what it was sent). */
  private redacted(err: unknown): unknown {
    const key = this.stored?.apiKey ?? this.ctx.env.OPENAI_API_KEY;
    if (!key || key.length < 4) return err;
    let current: unknown = err;
    for (let depth = 0; current instanceof Error && depth < 5; depth++) {
      if (current.message.includes(key)) current.message = current.message.split(key).join('[redacted]');
      current = (current as { cause?: unknown }).cause;
    }
    return err;
  }

  async call<T extends z.ZodType>(call: JudgeCall<T>): Promise<z.output<T>> {
    try {
      return await this.callOnce(call);
    } catch (err) {
      throw this.redacted(err);
    }
  }

  private async callOnce<T extends z.ZodType>(call: JudgeCall<T>): Promise<z.output<T>> {
    const { name, description, input } = call.tool;
    if (this.stored?.kind === 'anthropic') {
      const answer = await anthropicToolCall(this.stored, this.modelId, call, this.ctx);
      this.addUsage(answer.usage);
      const parsed = input.safeParse(answer.input);
      if (!parsed.success) {
        throw new InvalidProviderResponseError(`the judge model called ${name} with arguments that do not fit its schema: ${parsed.error.message}`);
      }
      return parsed.data;
    }
    const { ai, model } = await this.sdk();
    // The model's answer is billed even when the SDK refuses it (no call of the forced tool):
    // its usage is kept as it arrives, so the session's cost still counts it.
    let answeredUsage: AnswerUsage | null = null;
    const watched = ai.wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v3',
        wrapGenerate: async ({ doGenerate }) => {
          const answer = await doGenerate();
          answeredUsage = answer.usage;
          return answer;
        },
      },
    });
    let result;
    try {
      result = await ai.generateText({
        model: watched,
        system: call.system,
        prompt: call.prompt,
        tools: { [name]: ai.tool({ description, inputSchema: input }) },
        toolChoice: { type: 'tool', toolName: name },
        temperature: call.temperature ?? 0,
        maxOutputTokens: call.maxOutputTokens,
        maxRetries: this.ctx.maxRetries,
        abortSignal: this.ctx.signal,
      });
    } catch (err) {
      const usage = answeredUsage as AnswerUsage | null;
      if (usage) {
        this.addUsage({
          inputTokens: usage.inputTokens.total,
          outputTokens: usage.outputTokens.total,
          inputTokenDetails: { noCacheTokens: usage.inputTokens.noCache, cacheReadTokens: usage.inputTokens.cacheRead, cacheWriteTokens: usage.inputTokens.cacheWrite },
          outputTokenDetails: { textTokens: usage.outputTokens.text, reasoningTokens: usage.outputTokens.reasoning },
        });
      }
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

  /** A chat completion with the caller's parameters and tools (the prompts' playground); its usage adds up like a call's. */
  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatAnswer> {
    try {
      return await this.chatOnce(messages, options);
    } catch (err) {
      throw this.redacted(err);
    }
  }

  private async chatOnce(messages: ChatMessage[], options: ChatOptions): Promise<ChatAnswer> {
    const p = options.parameters ?? {};
    if (this.stored?.kind === 'anthropic') {
      const answer = await anthropicChat(this.stored, this.modelId, messages, p, this.ctx, options.onEvent);
      this.addUsage(answer.usage);
      return { text: answer.text, responseModel: answer.model || this.modelId, toolCalls: answer.toolCalls, finishReason: answer.finishReason };
    }
    const { ai, model } = await this.sdk();
    // A JSON Schema output goes as response_format, as written (not "strict" unless asked: the
    // author's schema need not meet OpenAI's strict-mode rules); the answer stays text, parsed by no one here.
    const format = p.response_format ?? (options.outputSchema ? { type: 'json_schema' as const, json_schema: options.outputSchema } : undefined);
    const output =
      format && format.type !== 'text'
        ? {
            ...ai.Output.text(),
            responseFormat: Promise.resolve(
              format.type === 'json_object' ? { type: 'json' as const } : { type: 'json' as const, schema: format.json_schema.schema, name: format.json_schema.name },
            ),
          }
        : undefined;
    const strict = format?.type === 'json_schema' ? (format.json_schema.strict ?? false) : false;
    // Tools without execute: the model's calls come back as they are; nothing runs them here.
    const tools = p.tools?.length
      ? Object.fromEntries(
          p.tools.map((t) => [t.function.name, ai.tool({ description: t.function.description, inputSchema: ai.jsonSchema((t.function.parameters ?? { type: 'object', properties: {} }) as JSONSchema7) })]),
        )
      : undefined;
    const choice = p.tool_choice;
    const settings = {
      model,
      messages,
      // The prompt's author wrote its system messages: no injection risk to warn about (on stderr).
      allowSystemInMessages: true,
      maxRetries: this.ctx.maxRetries,
      abortSignal: this.ctx.signal,
      temperature: p.temperature,
      maxOutputTokens: p.max_tokens,
      topP: p.top_p,
      stopSequences: typeof p.stop === 'string' ? [p.stop] : p.stop,
      seed: p.seed,
      ...(tools ? { tools, toolChoice: choice === undefined ? undefined : typeof choice === 'string' ? choice : { type: 'tool' as const, toolName: choice.function.name } } : {}),
      ...(output ? { output, providerOptions: { openai: { strictJsonSchema: strict } } } : {}),
    };
    const toolCall = (c: { toolCallId: string; toolName: string; input: unknown }): ToolCallEvent => ({ id: c.toolCallId, name: c.toolName, arguments: c.input });
    if (!options.onEvent) {
      let result;
      try {
        result = await ai.generateText(settings);
      } catch (err) {
        throw toProviderError(ai, err, this.ctx.signal);
      }
      this.addUsage(result.usage);
      return { text: result.text, responseModel: result.response?.modelId || this.modelId, toolCalls: result.toolCalls.map(toolCall), finishReason: result.finishReason };
    }
    // Errors come as parts of the stream; onError only keeps the SDK from printing them.
    const result = ai.streamText({ ...settings, onError: () => {} });
    let failure: unknown = null;
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') options.onEvent({ type: 'text', text: part.text });
      else if (part.type === 'tool-call') options.onEvent({ type: 'tool_call', ...toolCall(part) });
      else if (part.type === 'error') failure ??= part.error;
      else if (part.type === 'abort') failure ??= this.ctx.signal?.reason ?? new Error('aborted');
    }
    if (failure !== null) {
      const mapped = toProviderError(ai, failure, this.ctx.signal);
      // An error chunk of the stream comes as the provider's plain object, not an Error.
      if (mapped instanceof Error) throw mapped;
      const message = typeof mapped === 'object' && mapped !== null && 'message' in mapped ? String(mapped.message) : JSON.stringify(mapped);
      throw new ProviderError(`the model provider failed mid-answer: ${truncate(message, 500)}`);
    }
    const [text, usage, finishReason, response, calls] = await Promise.all([result.text, result.totalUsage, result.finishReason, result.response, result.toolCalls]);
    this.addUsage(usage);
    return { text, responseModel: response?.modelId || this.modelId, toolCalls: calls.map(toolCall), finishReason };
  }

  private addUsage(usage: Pick<LanguageModelUsage, 'inputTokens' | 'outputTokens'> & Partial<Pick<LanguageModelUsage, 'inputTokenDetails' | 'outputTokenDetails'>>): void {
    this.usage.calls++;
    this.usage.prompt_tokens += usage.inputTokens ?? 0;
    this.usage.completion_tokens += usage.outputTokens ?? 0;
    this.usage.cached_input_tokens += usage.inputTokenDetails?.cacheReadTokens ?? 0;
    this.usage.reasoning_tokens += usage.outputTokenDetails?.reasoningTokens ?? 0;
  }

  /**
   * USD from the shared price table: the judge's calls plus the embeddings' tokens at their own
   * model's price. Undefined when a model that was used is not in the table (a partial sum
   * would read as the whole cost).
   */
  cost(): EvaluationResult['cost'] {
    const embeddings = [...this.embeddingTokens.values()].filter((e) => e.tokens > 0);
    const parts = embeddings.map((e) => computeCost({ model: e.modelId, vendor: e.vendor, promptTokens: e.tokens }));
    if (this.usage.calls > 0 || embeddings.length === 0) {
      parts.push(
        computeCost({
          model: this.modelId,
          vendor: vendorOf(this.provider, this.stored),
          promptTokens: this.usage.prompt_tokens,
          completionTokens: this.usage.completion_tokens,
          cachedInputTokens: this.usage.cached_input_tokens,
          reasoningTokens: this.usage.reasoning_tokens,
        }),
      );
    }
    if (parts.some((p) => p === null)) return undefined;
    return { currency: parts[0]!.currency, amount: sumCostAmounts(parts.map((p) => p!.amount)) };
  }

  /** What every judge puts in raw_response: the model, the usage and any SDK warnings. */
  report(): Record<string, unknown> {
    const embeddingTokens = [...this.embeddingTokens.values()].reduce((total, e) => total + e.tokens, 0);
    return {
      model: `${this.provider}/${this.modelId}`,
      usage: { ...this.usage, ...(embeddingTokens ? { embedding_tokens: embeddingTokens } : {}) },
      ...(this.warnings.length ? { warnings: this.warnings } : {}),
    };
  }
}

/**
 * The provider set in the app that `model` (provider/model) names, or null for the server's
 * environment; throws when neither has it or the environment lacks its key.
 */
function resolveProvider(model: string, ctx: EvaluatorContext): ProviderConfig | null {
  const { provider } = splitModel(model);
  const stored = ctx.providers?.get(provider) ?? null;
  if (stored) return stored;
  if (!(provider in PROVIDERS)) {
    throw new EvaluatorError('UnknownProvider', `no model provider named ${provider} in this project or organization (settings: model providers)`);
  }
  const missing = missingModelEnv(model, ctx.env);
  if (missing) throw missing;
  return null;
}

function sdkProvider(ai: Sdk, name: string, stored: ProviderConfig | null, ctx: EvaluatorContext) {
  return stored ? storedProvider(ai, stored, ctx) : PROVIDERS[name as keyof typeof PROVIDERS].create(ai, ctx);
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
  return /^[A-Za-z0-9_.-]+$/.test(provider) && modelId ? { provider, modelId } : null;
}

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

export interface ChatOptions {
  parameters?: ChatParameters;
  /** The prompt version's JSON Schema output: the response format when parameters.response_format is not set. */
  outputSchema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  /** Stream: called with each piece of text and each tool call as it arrives. */
  onEvent?: (event: ChatEvent) => void;
}

interface ChatAnswer {
  text: string;
  responseModel: string;
  toolCalls: ToolCallEvent[];
  finishReason: string;
}

export interface ChatCompletion {
  text: string;
  toolCalls: ToolCallEvent[];
  /** stop, length, tool-calls, content-filter, other. */
  finishReason: string;
  /** The model the provider says answered (a dated snapshot, often), else the one asked for. */
  responseModel: string;
  usage: Omit<UsageTotals, 'calls'>;
  cost: EvaluationResult['cost'];
}

/**
 * One plain chat completion through the judges' provider and price table (a prompt's
 * "Try it"). Throws MissingConfigurationError, ProviderError or InvalidProviderResponseError.
 */
export async function completeChat(model: { provider: string; modelId: string }, messages: ChatMessage[], ctx: EvaluatorContext, options: ChatOptions = {}): Promise<ChatCompletion> {
  const session = new JudgeSession(`${model.provider}/${model.modelId}`, ctx);
  const answer = await session.chat(messages, options);
  const { calls: _calls, ...usage } = session.usage;
  return { ...answer, usage, cost: session.cost() };
}
