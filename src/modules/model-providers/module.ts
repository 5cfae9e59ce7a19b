import type { SpyglassModule } from '../../platform/module.ts';
import type { z } from 'zod';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Keyring } from '../../platform/crypto.ts';
import type { SealedKind } from '../../platform/sealed-kinds.ts';
import type { ChatCompletion, ChatMessage, ChatOptions, JudgeCall, ProviderConfig } from '../evaluators/index.ts';
import type { ModelCallLimits, ModelProviderContext, ModelProviderPorts, OpenedProvider, Scope } from './context.ts';
import { callTool, complete, DEFAULT_LIMITS, embed, providersFor } from './gateway.ts';
import { resealKeys } from './providers.ts';
import { resolveProvider } from './resolve-model.ts';
import { modelProviderRoutes } from './routes.ts';
import * as store from './store.ts';

/** Provider keys as the key tools count them. */
export const sealedProviderKeys: SealedKind = {
  one: 'model provider key',
  many: 'model provider keys',
  countByKey: store.sealedKeyCounts,
  reseal: ({ db, keyring }) => resealKeys({ db, keyring }),
};

/**
 * The one way other modules call models (prompts' "Try it", judges, simulations, topics): a
 * model name resolved to its provider, and completions, tool calls and embeddings with one
 * deadline and retry policy (`limits`).
 */
export interface ModelGateway {
  /** Deadline and retries of every call; one object, read at each call. */
  readonly limits: ModelCallLimits;
  /** The server environment's provider configuration (the fallback), as the judges read it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch: typeof fetch;
  /** The provider a model names, key opened (undefined: the environment's openai); 400 naming `field` for an unknown one. */
  providersFor(scope: Scope, model: string, field: string): Promise<ReadonlyMap<string, ProviderConfig> | undefined>;
  complete(scope: Scope, model: string, messages: ChatMessage[], signal?: AbortSignal, options?: ChatOptions): Promise<ChatCompletion & { provider: string }>;
  callTool<T extends z.ZodType>(scope: Scope, model: string, call: JudgeCall<T>, signal?: AbortSignal): Promise<z.output<T>>;
  embed(scope: Scope, model: string, texts: string[], field: string): Promise<number[][]>;
}

/** What the model-providers module offers the others: calls to models, and a provider name resolved. */
export interface ModelProviders {
  ctx: ModelProviderContext;
  gateway: ModelGateway;
  resolve(scope: Scope, name: string): Promise<OpenedProvider | null>;
}

export function buildModelProviders(ports: ModelProviderPorts & { db: Database; clock: Clock; keyring: Keyring; limits?: Partial<ModelCallLimits> }): ModelProviders {
  const { limits, ...rest } = ports;
  const ctx: ModelProviderContext = { ...rest, limits: { ...DEFAULT_LIMITS, ...limits }, resolved: new Map() };
  const gateway: ModelGateway = {
    limits: ctx.limits,
    env: ctx.env,
    fetch: ctx.fetch,
    providersFor: (scope, model, field) => providersFor(ctx, scope, model, field),
    complete: (scope, model, messages, signal, options) => complete(ctx, scope, model, messages, signal, options),
    callTool: (scope, model, call, signal) => callTool(ctx, scope, model, call, signal),
    embed: (scope, model, texts, field) => embed(ctx, scope, model, texts, field),
  };
  return { ctx, gateway, resolve: (scope, name) => resolveProvider(ctx, scope, name) };
}

/** The model-providers module's one entry: its routes. */
export const modelProvidersModule: SpyglassModule<{ modelProviders: ModelProviders }> = {
  name: 'model-providers',
  register: ({ http }, { modelProviders }) => modelProviderRoutes(http, modelProviders.ctx),
};
