import { performance } from 'node:perf_hooks';
import type { SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, badRequest, notFound } from '../../platform/errors.ts';
import { emitEvent, type EventType } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { Metrics } from '../../platform/metrics.ts';
import { catalogue, catalogueFor, closestEvaluatorNames, customCatalogueEntry, findEvaluator, type CatalogueAvailability } from './catalogue.ts';
import { CustomEvaluatorService, type ResolvedCustom } from './custom/service.ts';
import { renderTemplate, THREAD_VARIABLES, TRACE_VARIABLES, variablesOf } from './custom/definition.ts';
import { computeCost, estimateTokens } from '../traces/index.ts';
import { parseInput, parseSettings, runEvaluator } from './runner.ts';
import type { EvaluateBody, TraceEvaluation } from './schemas.ts';
import * as store from './store.ts';
import { EvaluatorError, MissingConfigurationError } from './errors.ts';
import { completeChat, JudgeSession, listProviderModels, resolveChatModel, splitModel, SUPPORTED_PROVIDERS, type JudgeCall, type ChatCompletion, type ChatMessage, type ChatOptions, type ChatParameters, type ProviderConfig } from './llm/provider.ts';
import type { EvaluationResult, EvaluatorDefinition } from './types.ts';

export interface EvaluationLimits {
  /** Deadline of one evaluation, all its provider calls and retries included. */
  timeoutMs: number;
  /** Retries of a failed provider call (HTTP 408/429/5xx, network errors). */
  maxRetries: number;
}

export const DEFAULT_LIMITS: EvaluationLimits = { timeoutMs: 120_000, maxRetries: 2 };

export interface EvaluationScope {
  organizationId: string;
  projectId: string;
}

/** An evaluator as a saved definition reads it: its path, name, the data keys it reads, and a custom one's version. */
export interface EvaluatorForRuns {
  path: string;
  name: string;
  dataKeys: string[];
  requiredKeys: string[];
  /** A custom evaluator's version (settings.version, else its newest); null for built-in ones. */
  version: number | null;
}

export type AnsweredResult = EvaluationResult & { evaluation_id?: string };

export interface EvaluationOutcome {
  results: AnsweredResult[];
  /** as_guardrail only: may the guarded call proceed (no result has passed === false)? */
  guardrailPassed: boolean | null;
}

const MAX_EVENT_DETAILS = 1000;

/** A judge's answer (its short reasoning and verdict), as the cost estimate assumes it. */
export const ESTIMATED_ANSWER_TOKENS = 150;
/** A built-in judge's own instructions around the data, as the cost estimate assumes them. */
const BUILT_IN_INSTRUCTION_TOKENS = 400;

/** What running an evaluator once per trace would cost (estimateCost). */
/** What evaluations use of a project's redaction (the privacy module). */
export interface ResultRedactor {
  readonly active: boolean;
  value<T>(value: T, field: string): T;
  take(): unknown;
}

export interface CostEstimate {
  usesLlm: boolean;
  model: string | null;
  promptTokensPerTrace: number;
  answerTokensPerTrace: number;
  /** null: the model is not in the price table. */
  costPerTrace: number | null;
  currency: string;
}

/** Model providers set in the app (the model-providers module, wired by app.ts). */
export interface ProviderDirectory {
  /** The provider this name means in the project (its own, else its organization's), key opened; null when none. */
  resolve(scope: EvaluationScope, name: string): Promise<ProviderConfig | null>;
}

/** What evaluations use of other modules, given when the service is made. */
export interface EvaluationPorts {
  /** Model providers set in the app: judges and "Try it" use the one their model names, else the environment. */
  providers: ProviderDirectory;
  /** Privacy at ingest (the privacy module): what a stored result and its events say is redacted first. */
  redactor: (projectId: string, path: string) => Promise<ResultRedactor>;
}

export class EvaluationService {
  readonly limits: EvaluationLimits;

  private readonly providers: ProviderDirectory;
  private readonly redactor: (projectId: string, path: string) => Promise<ResultRedactor>;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly env: Readonly<Record<string, string | undefined>>,
    ports: EvaluationPorts,
    limits: Partial<EvaluationLimits> = {},
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly metrics: Metrics = new Metrics(),
  ) {
    this.providers = ports.providers;
    this.redactor = ports.redactor;
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.custom = new CustomEvaluatorService(db, clock, async (scope, model, field) => void (await this.providersFor(scope, model, field)));
  }

  /** Custom evaluators (definitions and versions); they run through evaluate() as custom/<slug>. */
  readonly custom: CustomEvaluatorService;

  /** A result as stored and sent to webhooks: its label, details and traceback redacted (the caller's answer is not stored). */
  private async storedForm(projectId: string, result: AnsweredResult): Promise<AnsweredResult> {
    const r = await this.redactor(projectId, 'evaluations');
    if (!r?.active) return result;
    const stored = { ...result, label: r.value(result.label, 'label'), details: r.value(result.details, 'details'), traceback: r.value(result.traceback, 'details') };
    r.take();
    return stored;
  }

  /** Every built-in evaluator, with whether this server's environment lets it run (and why not). */
  catalogue(): CatalogueAvailability[] {
    return catalogueFor(this.env);
  }

  /** The built-in evaluators, then the project's custom ones (custom/<slug>) at their newest version. */
  async projectCatalogue(scope: EvaluationScope): Promise<CatalogueAvailability[]> {
    const custom = await this.custom.list(scope.projectId);
    const entries: CatalogueAvailability[] = [];
    for (const c of custom) {
      let reason: string | null = null;
      try {
        const providers = await this.providersFor(scope, c.model, 'model');
        const provider = c.model.slice(0, c.model.indexOf('/'));
        if (!providers?.has(provider) && !this.env.OPENAI_API_KEY) reason = `Its model ${c.model} needs OPENAI_API_KEY on the server, or a model provider named ${provider} set in the app.`;
      } catch (err) {
        reason = err instanceof Error ? err.message.replace(/^model: /, '') : String(err);
      }
      entries.push(customCatalogueEntry({ path: c.path, name: c.name, description: c.description ?? `Custom LLM judge (${c.answer.type.replace('_', '/')})`, variables: c.variables, version: c.version, available: reason === null, unavailableReason: reason }));
    }
    return [...this.catalogue(), ...entries];
  }

  /**
   * The provider a model names, as the runner takes it: the one set in the app, or none (the
   * server environment's openai). Any other name: 400 naming `field`.
   */
  async providersFor(scope: EvaluationScope, model: string, field: string): Promise<ReadonlyMap<string, ProviderConfig> | undefined> {
    const { provider } = splitModel(model);
    const stored = (await this.providers.resolve(scope, provider)) ?? null;
    if (stored) return new Map([[provider, stored]]);
    if ((SUPPORTED_PROVIDERS as readonly string[]).includes(provider)) return undefined;
    throw badRequest(
      'unsupported_provider',
      `${field}: unsupported provider ${provider}: no model provider named ${provider} in this project or its organization (POST /api/model-providers sets one; GET /api/model-providers/models lists the models), and the server's environment only gives openai/<model>`,
      field,
    );
  }

  /**
   * A custom evaluator's version to run: settings.version, else the newest. No such evaluator:
   * 404, or a 400 naming `field` when it is being saved for later (a monitor).
   */
  private async resolveCustom(scope: EvaluationScope, path: string, settings: unknown, field: string | null): Promise<ResolvedCustom> {
    const slug = path.slice('custom/'.length);
    const pinned = (settings as { version?: unknown } | null | undefined)?.version;
    const found = await this.custom.resolve(scope.projectId, slug, typeof pinned === 'number' && Number.isInteger(pinned) && pinned > 0 ? pinned : undefined);
    if (found) return found;
    if (field) throw badRequest('unknown_evaluator', `${field}: no evaluator ${path} in this project; GET /api/evaluations lists them`, field);
    throw notFound('evaluator_not_found', `no evaluator ${path} in this project; GET /api/evaluations lists the available ones`);
  }

  /** An LLM judge's provider, from its settings.model. */
  private async judgeProviders(scope: EvaluationScope, definition: EvaluatorDefinition, settings: unknown) {
    const model = (settings as { model?: unknown } | null)?.model;
    if (!definition.usesLlm || typeof model !== 'string') return undefined;
    return this.providersFor(scope, model, 'settings.model');
  }

  /**
   * An evaluator path and settings saved for later runs (monitors, experiment definitions):
   * what it is and what data it reads; 400 naming `evaluator` or `settings.<key>` (unknown
   * evaluator, refused settings, a judge whose provider is set neither in the app nor in the
   * environment). A custom evaluator answers the version that would run.
   */
  async describeForRuns(scope: EvaluationScope, path: string, settings: unknown): Promise<EvaluatorForRuns> {
    if (path.startsWith('custom/')) {
      const custom = await this.resolveCustom(scope, path, settings, 'evaluator');
      parseSettings(custom.definition, settings);
      await this.providersFor(scope, custom.config.model, 'evaluator');
      const keys = variablesOf(custom.config.prompt);
      return { path: custom.definition.path, name: custom.definition.name, dataKeys: keys, requiredKeys: keys, version: custom.version };
    }
    const definition = findEvaluator(path);
    const entry = definition && catalogue().find((e) => e.path === definition.path);
    if (!definition || !entry) throw badRequest('unknown_evaluator', `evaluator: no evaluator ${path}; the closest are ${closestEvaluatorNames(path).join(', ')} (GET /api/evaluations lists them)`, 'evaluator');
    // Saving one for later runs would only store errors: refuse it now, saying what to use instead.
    if (definition.notOffered) throw badRequest('evaluator_not_offered', `evaluator: ${definition.notOffered}`, 'evaluator');
    await this.judgeProviders(scope, definition, parseSettings(definition, settings));
    const schema = entry.data as { properties?: Record<string, unknown>; required?: string[] };
    return { path: definition.path, name: definition.name, dataKeys: Object.keys(schema.properties ?? {}), requiredKeys: schema.required ?? [], version: null };
  }

  /**
   * What running `path` once per trace would cost, estimated from `samples` (the evaluation data
   * of a few of the traces): the prompt's tokens counted with the model's tokenizer (a custom
   * judge's rendered template; a built-in judge's data plus its instructions), an assumed
   * answer of ESTIMATED_ANSWER_TOKENS, priced by the price table. Evaluators without an LLM cost 0.
   */
  async estimateCost(scope: EvaluationScope, path: string, settings: unknown, samples: Record<string, unknown>[]): Promise<CostEstimate> {
    const custom = path.startsWith('custom/') ? await this.resolveCustom(scope, path, settings, 'evaluator') : null;
    const definition = custom?.definition ?? this.evaluator(path);
    if (!definition.usesLlm) return { usesLlm: false, model: null, promptTokensPerTrace: 0, answerTokensPerTrace: 0, costPerTrace: 0, currency: 'USD' };
    const model = custom?.config.model ?? ((parseSettings(definition, settings) as { model?: unknown }).model as string | undefined) ?? null;
    if (!model) return { usesLlm: true, model: null, promptTokensPerTrace: 0, answerTokensPerTrace: 0, costPerTrace: null, currency: 'USD' };
    const { provider, modelId } = splitModel(model);
    const stored = (await this.providersFor(scope, model, 'evaluator'))?.get(provider);
    const vendor = stored ? (stored.kind === 'anthropic' ? 'anthropic' : 'openai') : provider;
    const promptOf = (data: Record<string, unknown>) => (custom ? renderTemplate(custom.config.prompt, data) : JSON.stringify(data));
    const counted = samples.map((d) => estimateTokens(promptOf(d), modelId) + (custom ? 0 : BUILT_IN_INSTRUCTION_TOKENS));
    const promptTokens = counted.length ? Math.ceil(counted.reduce((a, b) => a + b, 0) / counted.length) : 0;
    const cost = computeCost({ model: modelId, vendor, promptTokens, completionTokens: ESTIMATED_ANSWER_TOKENS });
    return { usesLlm: true, model, promptTokensPerTrace: promptTokens, answerTokensPerTrace: ESTIMATED_ANSWER_TOKENS, costPerTrace: cost?.amount ?? null, currency: cost?.currency ?? 'USD' };
  }

  /** An evaluator path and settings to save for a monitor: as describeForRuns, and a custom template may name only what its unit (traces or threads) gives. */
  async checkSettings(scope: EvaluationScope, path: string, settings: unknown, unit: 'trace' | 'thread' = 'trace'): Promise<void> {
    const found = await this.describeForRuns(scope, path, settings);
    if (found.version === null) return;
    const given = unit === 'thread' ? THREAD_VARIABLES : TRACE_VARIABLES;
    const lacking = found.dataKeys.filter((v) => !given.includes(v));
    if (lacking.length) {
      throw badRequest(
        'template_variables',
        `evaluator: the template of ${path} (version ${found.version}) names ${lacking.map((v) => `{{${v}}}`).join(', ')}, which ${unit}s do not give (they give ${given.join(', ')})`,
        'evaluator',
      );
    }
  }

  evaluator(path: string): EvaluatorDefinition {
    const definition = findEvaluator(path);
    if (!definition) {
      const closest = closestEvaluatorNames(path);
      throw new AppError(404, 'evaluator_not_found', `no evaluator ${path}; the closest are ${closest.join(', ')} (GET /api/evaluations lists them all)`, { meta: { closest } });
    }
    return definition;
  }

  /**
   * What running `path` takes, for the evaluate route, monitors and experiment runs alike: the
   * evaluator (a custom one at settings.version, else its newest), the parsed data and
   * settings, and the judge's provider (the project's, else the environment's).
   */
  private async prepare(scope: EvaluationScope, path: string, data: unknown, settings: unknown) {
    const custom = path.startsWith('custom/') ? await this.resolveCustom(scope, path, settings, null) : null;
    const definition = custom?.definition ?? this.evaluator(path);
    const input = parseInput(definition, data, settings);
    const providers = custom ? await this.providersFor(scope, custom.config.model, 'model') : await this.judgeProviders(scope, definition, input.settings);
    return { custom, definition, input, providers };
  }

  private async execute(prepared: Awaited<ReturnType<EvaluationService['prepare']>>, signal: AbortSignal | undefined): Promise<EvaluationResult> {
    const { definition, input, providers, custom } = prepared;
    const started = performance.now();
    try {
      const result = await runEvaluator(definition, input, {
        env: this.env,
        fetch: this.fetchImpl,
        now: () => this.clock.now(),
        timeoutMs: this.limits.timeoutMs,
        maxRetries: this.limits.maxRetries,
        signal,
        providers,
        model: custom?.config.model,
      });
      this.metrics.evaluatorRun(definition.path, result.status, (performance.now() - started) / 1000, result.error_type ?? undefined);
      return result;
    } catch (err) {
      this.metrics.evaluatorRun(definition.path, 'error', (performance.now() - started) / 1000, err instanceof Error ? err.name : 'Error');
      throw err;
    }
  }

  /**
   * Runs one evaluator as evaluate() does, without storing its result or writing events (an
   * experiment run stores its own): data, settings or an evaluator it cannot run answer a
   * result with status error naming why.
   */
  async runDetached(scope: EvaluationScope, path: string, data: Record<string, unknown>, settings: Record<string, unknown>, signal?: AbortSignal): Promise<EvaluationResult> {
    let prepared;
    try {
      prepared = await this.prepare(scope, path, data, settings);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return { status: 'error', details: err.message, error_type: err.status === 400 ? 'ValidationError' : err.code };
      throw err;
    }
    return this.execute(prepared, signal);
  }

  /**
   * Runs one evaluator (400 for bad data or settings, 404 for an unknown path). With a
   * trace_id the result is stored on that trace; either way its webhook events are written,
   * in the same transaction as the stored result.
   */
  async evaluate(scope: EvaluationScope, path: string, body: EvaluateBody, signal?: AbortSignal, origin: { monitorId?: string } = {}): Promise<EvaluationOutcome> {
    const prepared = await this.prepare(scope, path, body.data, body.settings);
    const { custom, definition, input } = prepared;
    let result: AnsweredResult = await this.execute(prepared, signal);

    // Nobody is waiting for this answer: store nothing the client was not told about.
    if (signal?.aborted) throw new AppError(499, 'client_closed_request', 'the client closed the connection before the evaluation finished');

    const asGuardrail = body.as_guardrail === true;
    if (asGuardrail) {
      // A verdict against the content blocks the call, and so does a failed evaluation: a
      // guardrail that could not run (not configured, provider down) must not wave everything
      // through. A skip or a score without a verdict lets the call proceed.
      result = { ...result, passed: result.status !== 'error' && result.passed !== false };
    }

    const now = this.clock.now();
    const name = body.name ?? definition.name;
    const traceId = body.trace_id ?? null;
    const stored = await this.storedForm(scope.projectId, result);
    await this.db.orm.transaction(async (tx) => {
      if (traceId) {
        const row = await store.insertEvaluation(tx, {
          id: newId('eval'),
          projectId: scope.projectId,
          traceId,
          evaluator: definition.path,
          name,
          status: stored.status,
          score: stored.score ?? null,
          passed: stored.passed ?? null,
          label: stored.label ?? null,
          details: stored.details ?? null,
          costAmount: stored.cost?.amount ?? null,
          costCurrency: stored.cost?.currency ?? null,
          settings: input.settings as Record<string, unknown>,
          isGuardrail: asGuardrail,
          errorType: stored.status === 'error' ? (stored.error_type ?? 'Error') : null,
          errorMessage: stored.status === 'error' ? (stored.details ?? '') : null,
          errorStacktrace: stored.status === 'error' ? (stored.traceback ?? []) : null,
          insertedAt: now.getTime(),
          updatedAt: now.getTime(),
          monitorId: origin.monitorId ?? null,
          evaluatorVersion: custom?.version ?? null,
        });
        result = { ...result, evaluation_id: row.id };
      }
      await this.emitEvents(tx, scope, { result: { ...stored, evaluation_id: result.evaluation_id }, path: definition.path, name, traceId, asGuardrail, version: custom?.version ?? null }, now);
    });

    return { results: [result], guardrailPassed: asGuardrail ? result.passed !== false : null };
  }

  private async emitEvents(
    tx: Executor,
    scope: EvaluationScope,
    e: { result: AnsweredResult; path: string; name: string; traceId: string | null; asGuardrail: boolean; version: number | null },
    now: Date,
  ): Promise<void> {
    const { result } = e;
    const data = {
      evaluation_id: result.evaluation_id ?? null,
      trace_id: e.traceId,
      type: e.path,
      name: e.name,
      status: result.status,
      score: result.score ?? null,
      passed: result.passed ?? null,
      label: result.label ?? null,
      details: result.details ? truncate(result.details, MAX_EVENT_DETAILS) : null,
      cost: result.cost ?? null,
      error_type: result.error_type ?? null,
      as_guardrail: e.asGuardrail,
      ...(e.version !== null ? { evaluator_version: e.version } : {}),
    };
    const base = { organizationId: scope.organizationId, projectId: scope.projectId };
    const type: EventType = result.status === 'error' ? 'evaluation.failed' : 'evaluation.completed';
    await emitEvent(tx, { ...base, type, data }, now);
    if (e.asGuardrail && result.passed === false) {
      await emitEvent(tx, { ...base, type: 'guardrail.triggered', data }, now);
    }
  }

  /**
   * One chat completion with the judges' provider configuration, retries, deadline and price
   * table (a prompt's "Try it"). `model` is `provider/model` or a bare OpenAI model id.
   * Failures are HTTP errors here: 400 naming `model`, 503 when the provider is not
   * configured (naming the variable), 502 for the provider's errors, 504 past the deadline.
   */
  async complete(scope: EvaluationScope, model: string, messages: ChatMessage[], signal?: AbortSignal, options: ChatOptions = {}): Promise<ChatCompletion & { provider: string }> {
    const resolved = resolveChatModel(model);
    if (!resolved) throw badRequest('unsupported_model', `model: ${model} is not supported; use <provider>/<model> (GET /api/model-providers/models lists them)`, 'model');
    const providers = await this.providersFor(scope, `${resolved.provider}/${resolved.modelId}`, 'model');
    const stored = providers?.get(resolved.provider);
    if (stored?.kind === 'anthropic') checkAnthropicParameters(options.parameters ?? {});
    return this.completeWith(resolved, messages, { ...options, signal, providers, timeoutMs: this.limits.timeoutMs, maxRetries: this.limits.maxRetries, vendor: stored ? (stored.kind === 'anthropic' ? 'anthropic' : 'openai') : resolved.provider });
  }

  /**
   * One forced tool call, as the LLM judges (custom ones included) make them, with their provider
   * configuration, retries and deadline: its arguments, validated. Failures as complete()'s.
   */
  async callTool<T extends z.ZodType>(scope: EvaluationScope, model: string, call: JudgeCall<T>, signal?: AbortSignal): Promise<z.output<T>> {
    const providers = await this.providersFor(scope, model, 'model');
    const deadline = AbortSignal.timeout(this.limits.timeoutMs);
    const session = new JudgeSession(model, {
      env: this.env,
      fetch: this.fetchImpl,
      now: () => this.clock.now(),
      maxRetries: this.limits.maxRetries,
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      providers,
    });
    try {
      return await session.call(call);
    } catch (err) {
      if (err instanceof MissingConfigurationError) throw new AppError(503, 'provider_not_configured', err.message, { meta: { variable: err.variable } });
      if (deadline.aborted) throw new AppError(504, 'provider_timeout', `the model provider did not answer within ${this.limits.timeoutMs / 1000} s (retries included)`);
      if (err instanceof EvaluatorError) throw new AppError(502, err.type === 'ProviderError' ? 'provider_error' : 'invalid_provider_response', err.message);
      throw err;
    }
  }

  /**
   * Embeddings of `texts` by `model` (provider/model: a provider set in the app, or openai from
   * the environment), within the evaluations' deadline: 400 naming `field` for a provider that
   * does not exist, the provider's own errors otherwise.
   */
  async embed(scope: EvaluationScope, model: string, texts: string[], field: string): Promise<number[][]> {
    const providers = await this.providersFor(scope, model, field);
    const session = new JudgeSession(model, { env: this.env, fetch: this.fetchImpl, now: () => this.clock.now(), signal: AbortSignal.timeout(this.limits.timeoutMs), maxRetries: this.limits.maxRetries, providers });
    return session.embed(model, texts);
  }

  /** A model provider's "test": one tiny completion, a short deadline, no retries. */
  async probe(provider: ProviderConfig, modelId: string): Promise<{ text: string; responseModel: string }> {
    return this.completeWith({ provider: provider.name, modelId }, [{ role: 'user', content: 'Reply with the single word OK.' }], {
      providers: new Map([[provider.name, provider]]),
      timeoutMs: Math.min(this.limits.timeoutMs, 30_000),
      maxRetries: 0,
      vendor: provider.kind,
    });
  }

  /** A provider's own list of models (GET <base>/models), with the probe's deadline: 502 for its refusal, 504 past the deadline. */
  async listModels(provider: ProviderConfig): Promise<string[]> {
    const deadline = AbortSignal.timeout(Math.min(this.limits.timeoutMs, 30_000));
    try {
      return await listProviderModels(provider, this.fetchImpl, deadline);
    } catch (err) {
      if (deadline.aborted) throw new AppError(504, 'provider_timeout', 'the model provider did not list its models within 30 s');
      if (err instanceof EvaluatorError) throw new AppError(502, err.type === 'ProviderError' ? 'provider_error' : 'invalid_provider_response', err.message);
      throw err;
    }
  }

  private async completeWith(
    resolved: { provider: string; modelId: string },
    messages: { role: 'system' | 'user' | 'assistant'; content: string }[],
    o: ChatOptions & { signal?: AbortSignal; providers?: ReadonlyMap<string, ProviderConfig>; timeoutMs: number; maxRetries: number; vendor: string },
  ): Promise<ChatCompletion & { provider: string }> {
    const { signal } = o;
    const deadline = AbortSignal.timeout(o.timeoutMs);
    try {
      const answer = await completeChat(resolved, messages, {
        env: this.env,
        fetch: this.fetchImpl,
        now: () => this.clock.now(),
        maxRetries: o.maxRetries,
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
        providers: o.providers,
      }, { parameters: o.parameters, outputSchema: o.outputSchema, onEvent: o.onEvent });
      return { ...answer, provider: o.vendor };
    } catch (err) {
      if (err instanceof MissingConfigurationError) {
        throw new AppError(503, 'provider_not_configured', err.message, { meta: { variable: err.variable } });
      }
      if (deadline.aborted) throw new AppError(504, 'provider_timeout', `the model provider did not answer within ${o.timeoutMs / 1000} s (retries included)`);
      if (err instanceof EvaluatorError) throw new AppError(502, err.type === 'ProviderError' ? 'provider_error' : 'invalid_provider_response', err.message);
      throw err;
    }
  }

  async listTraceEvaluations(projectId: string, traceId: string): Promise<TraceEvaluation[]> {
    return listTraceEvaluations(this.db, projectId, traceId);
  }
}

/** The spec's "Trace evaluation" objects of one trace, oldest first (the traces module reads them). */
export async function listTraceEvaluations(db: Database | Executor, projectId: string, traceId: string): Promise<TraceEvaluation[]> {
  const executor = 'orm' in db ? db.orm : db;
  const rows = await store.listByTrace(executor, projectId, traceId);
  return rows.map(toTraceEvaluation);
}

/** For judge alignment: a judge's latest processed result per trace (at a custom judge's version when given). */
export type { JudgeResultRow } from './store.ts';

export async function judgeResultsByTrace(db: Database, projectId: string, evaluator: string, version: number | null): Promise<store.JudgeResultRow[]> {
  return store.latestResultsByTrace(db.orm, projectId, evaluator, version);
}

/** For judge alignment: every evaluator with processed results in the project, with its versions and result count. */
export async function judgesWithResults(db: Database, projectId: string): Promise<{ evaluator: string; versions: number[]; results: number }[]> {
  return store.evaluatorsWithResults(db.orm, projectId);
}

/** For judge alignment: the versions of a custom judge that left results. */
export async function judgeResultVersions(db: Database, projectId: string, evaluator: string): Promise<number[]> {
  return store.resultVersions(db.orm, projectId, evaluator);
}

/** The results a monitor produced, newest first, a keyset page at a time (`cursor` from the previous page). */
export async function monitorResults(
  db: Database,
  projectId: string,
  monitorId: string,
  page: { pageSize: number; cursor?: string; outcome?: store.Outcome },
): Promise<{ data: MonitorResult[]; next_cursor: string | null }> {
  let after: { insertedAt: number; id: string } | null = null;
  if (page.cursor) {
    try {
      const c = JSON.parse(Buffer.from(page.cursor, 'base64url').toString('utf8')) as { t: unknown; i: unknown };
      if (typeof c.t === 'number' && typeof c.i === 'string') after = { insertedAt: c.t, id: c.i };
    } catch {
      /* answered below */
    }
    if (!after) throw badRequest('invalid_cursor', 'cursor: not one this server issued', 'cursor');
  }
  const found = await store.listByMonitor(db.orm, projectId, monitorId, { limit: page.pageSize + 1, after, outcome: page.outcome });
  const rows = found.slice(0, page.pageSize);
  const last = rows[rows.length - 1];
  return {
    data: rows.map((r) => ({
      evaluation_id: r.id,
      trace_id: r.traceId,
      status: r.status,
      passed: r.passed,
      score: r.score,
      label: r.label,
      details: r.details,
      evaluator_version: r.evaluatorVersion,
      inserted_at: Number(r.insertedAt),
    })),
    next_cursor: found.length > page.pageSize && last ? Buffer.from(JSON.stringify({ t: Number(last.insertedAt), i: last.id })).toString('base64url') : null,
  };
}

export interface MonitorResult {
  evaluation_id: string;
  trace_id: string;
  status: 'processed' | 'skipped' | 'error';
  passed: boolean | null;
  score: number | null;
  label: string | null;
  details: string | null;
  /** The custom evaluator's version that produced it; null for built-in evaluators. */
  evaluator_version: number | null;
  inserted_at: number;
}

/** A monitor's results counted per time bucket (of when they were stored). */
/** Of `traceIds`, those the monitor already evaluated with this evaluator version (a backfill skips them). */
export function tracesEvaluatedByMonitor(db: Database, projectId: string, monitorId: string, version: number | null, traceIds: readonly string[]): Promise<Set<string>> {
  return store.tracesEvaluatedByMonitor(db.orm, projectId, monitorId, version, traceIds);
}

export async function monitorOutcomeCounts(db: Database, projectId: string, monitorId: string, range: { start: number; end: number; bucket: SQL }) {
  return store.countByMonitor(db.orm, projectId, monitorId, range);
}

export async function monitorScores(db: Database, projectId: string, monitorId: string, range: { start: number; end: number; bucket: SQL }) {
  return store.scoresByMonitor(db.orm, projectId, monitorId, range);
}

/** For the traces module's deletions and retention sweep: the evaluations of these traces go with them. */
export async function deleteTraceEvaluations(db: Database | Executor, projectId: string, traceIds: readonly string[]): Promise<number> {
  return store.deleteByTraces('orm' in db ? db.orm : db, projectId, traceIds);
}

/**
 * Retention for results whose trace never arrived (or was swept): everything of the project
 * stored before `beforeMs` (epoch ms).
 */
export async function deleteEvaluationsInsertedBefore(db: Database | Executor, projectId: string, beforeMs: number): Promise<number> {
  return store.deleteInsertedBefore('orm' in db ? db.orm : db, projectId, beforeMs);
}

function toTraceEvaluation(row: store.EvaluationRow): TraceEvaluation {
  return {
    evaluation_id: row.id,
    name: row.name,
    type: row.evaluator,
    trace_id: row.traceId,
    project_id: row.projectId,
    status: row.status,
    score: row.score,
    passed: row.passed,
    label: row.label,
    details: row.details,
    cost: row.costAmount !== null ? { currency: row.costCurrency ?? 'USD', amount: row.costAmount } : null,
    is_guardrail: row.isGuardrail,
    timestamps: { inserted_at: Number(row.insertedAt), updated_at: Number(row.updatedAt) },
    error:
      row.status === 'error'
        ? {
            stacktrace: row.errorStacktrace ?? [],
            message: row.errorMessage ?? '',
            has_error: true,
            error_type: row.errorType,
          }
        : null,
  };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
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
