import type { z } from 'zod';
import { AppError, badRequest } from '../../platform/errors.ts';
import {
  completeChat,
  EvaluatorError,
  JudgeSession,
  listProviderModels,
  MissingConfigurationError,
  resolveChatModel,
  splitModel,
  SUPPORTED_PROVIDERS,
  type ChatCompletion,
  type ChatMessage,
  type ChatOptions,
  type ChatParameters,
  type JudgeCall,
  type ProviderConfig,
} from '../evaluators/index.ts';
import type { ModelCallLimits, ModelProviderContext, OpenedProvider, Scope } from './context.ts';
import { resolveProvider } from './resolve-model.ts';

/**
 * The one way to a model: a model name resolved to its provider (the project's, its
 * organization's, else the server environment's openai), then a completion, a forced tool
 * call, embeddings, a provider's probe or its list of models, all with the same deadline,
 * retries and error answers. Judges (the evaluators' runner) call with the providers resolved here.
 */

export const DEFAULT_LIMITS: ModelCallLimits = { timeoutMs: 120_000, maxRetries: 2 };

/** A probe or a provider's list of models waits at most this long, without retries. */
const PROBE_MS = 30_000;

/**
 * The provider a model names, as the judges take it: the one set in the app, or none (the
 * server environment's openai). Any other name: 400 naming `field`.
 */
export async function providersFor(ctx: ModelProviderContext, scope: Scope, model: string, field: string): Promise<ReadonlyMap<string, ProviderConfig> | undefined> {
  const { provider } = splitModel(model);
  const stored = (await resolveProvider(ctx, scope, provider)) ?? null;
  if (stored) return new Map([[provider, stored]]);
  if ((SUPPORTED_PROVIDERS as readonly string[]).includes(provider)) return undefined;
  throw badRequest(
    'unsupported_provider',
    `${field}: unsupported provider ${provider}: no model provider named ${provider} in this project or its organization (POST /api/model-providers sets one; GET /api/model-providers/models lists the models), and the server's environment only gives openai/<model>`,
    field,
  );
}

/**
 * One chat completion with the judges' provider configuration, retries, deadline and price
 * table (a prompt's "Try it"). `model` is `provider/model` or a bare OpenAI model id.
 * Failures are HTTP errors here: 400 naming `model`, 503 when the provider is not
 * configured (naming the variable), 502 for the provider's errors, 504 past the deadline.
 */
export async function complete(
  ctx: ModelProviderContext,
  scope: Scope,
  model: string,
  messages: ChatMessage[],
  signal?: AbortSignal,
  options: ChatOptions = {},
): Promise<ChatCompletion & { provider: string }> {
  const resolved = resolveChatModel(model);
  if (!resolved) throw badRequest('unsupported_model', `model: ${model} is not supported; use <provider>/<model> (GET /api/model-providers/models lists them)`, 'model');
  const providers = await providersFor(ctx, scope, `${resolved.provider}/${resolved.modelId}`, 'model');
  const stored = providers?.get(resolved.provider);
  if (stored?.kind === 'anthropic') checkAnthropicParameters(options.parameters ?? {});
  return completeWith(ctx, resolved, messages, {
    ...options,
    signal,
    providers,
    timeoutMs: ctx.limits.timeoutMs,
    maxRetries: ctx.limits.maxRetries,
    vendor: stored ? (stored.kind === 'anthropic' ? 'anthropic' : 'openai') : resolved.provider,
  });
}

/**
 * One forced tool call, as the LLM judges (custom ones included) make them, with their provider
 * configuration, retries and deadline: its arguments, validated. Failures as complete()'s.
 */
export async function callTool<T extends z.ZodType>(ctx: ModelProviderContext, scope: Scope, model: string, call: JudgeCall<T>, signal?: AbortSignal): Promise<z.output<T>> {
  const providers = await providersFor(ctx, scope, model, 'model');
  const deadline = AbortSignal.timeout(ctx.limits.timeoutMs);
  const session = new JudgeSession(model, {
    env: ctx.env,
    fetch: ctx.fetch,
    now: () => ctx.clock.now(),
    maxRetries: ctx.limits.maxRetries,
    signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    providers,
  });
  try {
    return await session.call(call);
  } catch (err) {
    throw asHttpError(err, deadline, `the model provider did not answer within ${ctx.limits.timeoutMs / 1000} s (retries included)`);
  }
}

/**
 * Embeddings of `texts` by `model` (provider/model: a provider set in the app, or openai from
 * the environment), within the evaluations' deadline: 400 naming `field` for a provider that
 * does not exist, the provider's own errors otherwise.
 */
export async function embed(ctx: ModelProviderContext, scope: Scope, model: string, texts: string[], field: string): Promise<number[][]> {
  const providers = await providersFor(ctx, scope, model, field);
  const session = new JudgeSession(model, {
    env: ctx.env,
    fetch: ctx.fetch,
    now: () => ctx.clock.now(),
    signal: AbortSignal.timeout(ctx.limits.timeoutMs),
    maxRetries: ctx.limits.maxRetries,
    providers,
  });
  return session.embed(model, texts);
}

/** A model provider's "test": one tiny completion, a short deadline, no retries. */
export async function probe(ctx: ModelProviderContext, provider: OpenedProvider, modelId: string): Promise<{ text: string; responseModel: string }> {
  return completeWith(ctx, { provider: provider.name, modelId }, [{ role: 'user', content: 'Reply with the single word OK.' }], {
    providers: new Map([[provider.name, provider]]),
    timeoutMs: Math.min(ctx.limits.timeoutMs, PROBE_MS),
    maxRetries: 0,
    vendor: provider.kind,
  });
}

/** A provider's own list of models (GET <base>/models), with the probe's deadline: 502 for its refusal, 504 past the deadline. */
export async function listProviderOwnModels(ctx: ModelProviderContext, provider: OpenedProvider): Promise<string[]> {
  const deadline = AbortSignal.timeout(Math.min(ctx.limits.timeoutMs, PROBE_MS));
  try {
    return await listProviderModels(provider, ctx.fetch, deadline);
  } catch (err) {
    throw asHttpError(err, deadline, 'the model provider did not list its models within 30 s');
  }
}

async function completeWith(
  ctx: ModelProviderContext,
  resolved: { provider: string; modelId: string },
  messages: ChatMessage[],
  o: ChatOptions & { signal?: AbortSignal; providers?: ReadonlyMap<string, ProviderConfig>; timeoutMs: number; maxRetries: number; vendor: string },
): Promise<ChatCompletion & { provider: string }> {
  const { signal } = o;
  const deadline = AbortSignal.timeout(o.timeoutMs);
  try {
    const answer = await completeChat(
      resolved,
      messages,
      {
        env: ctx.env,
        fetch: ctx.fetch,
        now: () => ctx.clock.now(),
        maxRetries: o.maxRetries,
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
        providers: o.providers,
      },
      { parameters: o.parameters, outputSchema: o.outputSchema, onEvent: o.onEvent },
    );
    return { ...answer, provider: o.vendor };
  } catch (err) {
    throw asHttpError(err, deadline, `the model provider did not answer within ${o.timeoutMs / 1000} s (retries included)`);
  }
}

/** A provider call's failure as the API answers it: 503 not configured (naming the variable), 504 past the deadline, 502 the provider's error. */
function asHttpError(err: unknown, deadline: AbortSignal, timeoutMessage: string): unknown {
  if (err instanceof MissingConfigurationError) return new AppError(503, 'provider_not_configured', err.message, { meta: { variable: err.variable } });
  if (deadline.aborted) return new AppError(504, 'provider_timeout', timeoutMessage);
  if (err instanceof EvaluatorError) return new AppError(502, err.type === 'ProviderError' ? 'provider_error' : 'invalid_provider_response', err.message);
  return err;
}

/** What Anthropic's Messages API has no place for, or takes in a narrower range: a 400 naming the parameter. */
function checkAnthropicParameters(p: ChatParameters): void {
  if (p.seed !== undefined) throw badRequest('unsupported_parameter', 'parameters.seed: Anthropic models take no seed', 'parameters.seed');
  if (p.response_format !== undefined && p.response_format.type !== 'text') {
    throw badRequest('unsupported_parameter', 'parameters.response_format: Anthropic models take no response format (declare a tool and require it instead)', 'parameters.response_format');
  }
  if (p.temperature !== undefined && p.temperature > 1) throw badRequest('unsupported_parameter', 'parameters.temperature: Anthropic models take 0..1', 'parameters.temperature');
  if (p.stop !== undefined && (typeof p.stop === 'string' ? [p.stop] : p.stop).some((s) => !s.trim())) {
    throw badRequest('unsupported_parameter', 'parameters.stop: Anthropic refuses stop sequences of only whitespace', 'parameters.stop');
  }
}
