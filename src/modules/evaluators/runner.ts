/**
 * Runs one evaluator on one entry: validates data and settings (400 naming the field), checks
 * the provider configuration, and turns everything that can go wrong during the run into a
 * result with status "error" (error_type, details, traceback), never an exception.
 */
import { z } from 'zod';
import { AppError, type FieldIssue } from '../../platform/errors.ts';
import { EvaluatorError, MissingConfigurationError } from './errors.ts';
import { splitModel, type ProviderConfig } from './llm/provider.ts';
import type { EvaluationResult, EvaluatorContext, EvaluatorDefinition } from './types.ts';

export interface ParsedInput {
  data: unknown;
  settings: unknown;
}

/** Parses `data` and `settings` with the evaluator's schemas; 400 naming the first bad field. */
export function parseInput(definition: EvaluatorDefinition, rawData: unknown, rawSettings: unknown): ParsedInput {
  const data = definition.data.safeParse(rawData ?? {});
  if (!data.success) throw validationError('data', data.error);
  return { data: data.data, settings: parseSettings(definition, rawSettings) };
}

/** Settings with defaults applied; unknown keys and bad values are a 400 naming `settings.<key>`. */
export function parseSettings(definition: EvaluatorDefinition, rawSettings: unknown): unknown {
  const settingsInput = rawSettings ?? {};
  const unknown = unknownKeys(definition.settings, settingsInput);
  if (unknown.length) {
    const field = `settings.${unknown[0]}`;
    const known = knownKeys(definition.settings);
    throw new AppError(
      400,
      'validation_error',
      `${field}: unknown setting of ${definition.path}; its settings are ${known.length ? known.join(', ') : '(none)'}`,
      { field, issues: unknown.map((k) => ({ field: `settings.${k}`, message: 'unknown setting' })) },
    );
  }
  const settings = definition.settings.safeParse(settingsInput);
  if (!settings.success) throw validationError('settings', settings.error);
  return settings.data;
}

function validationError(root: 'data' | 'settings', error: z.ZodError): AppError {
  const issues: FieldIssue[] = error.issues.flatMap((issue) => {
    const base = [root, ...issue.path.map(String)];
    // Strict objects report unknown keys on the object itself: name each key.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ field: [...base, k].join('.'), message: 'unknown key' }));
    }
    return [{ field: base.join('.'), message: issue.message }];
  });
  const first = issues[0] ?? { field: root, message: 'invalid' };
  return new AppError(400, 'validation_error', `${first.field}: ${first.message}`, { field: first.field, issues });
}

/** The object schema under defaults/optionals, when the settings are a plain (stripping) object. */
function settingsObject(schema: z.ZodType): z.ZodObject | null {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 10; depth++) {
    const def = (current as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
    if (def.type === 'object') return current as z.ZodObject;
    if (!def.innerType) return null;
    current = def.innerType;
  }
  return null;
}

function knownKeys(schema: z.ZodType): string[] {
  return Object.keys(settingsObject(schema)?.shape ?? {});
}

/**
 * Settings keys the evaluator does not have. zod's default objects drop them silently, which
 * would turn a typo (distance_mesure) into a silently ignored setting.
 */
function unknownKeys(schema: z.ZodType, input: unknown): string[] {
  const object = settingsObject(schema);
  if (!object || object._zod.def.catchall || typeof input !== 'object' || input === null || Array.isArray(input)) return [];
  const known = new Set(Object.keys(object.shape));
  return Object.keys(input).filter((k) => !known.has(k));
}

export interface RunOptions {
  env: EvaluatorContext['env'];
  fetch: typeof fetch;
  now: () => Date;
  /** The whole evaluation's deadline, provider calls and retries included. */
  timeoutMs: number;
  maxRetries?: number;
  /** Aborts the run from outside (e.g. the client went away). */
  signal?: AbortSignal;
  /** Model providers set in the app, by name; a judge whose model names one needs no server variable. */
  providers?: ReadonlyMap<string, ProviderConfig>;
  /** The judge's model when its settings do not carry it (a custom evaluator's version does). */
  model?: string;
}

/** Runs a parsed entry. Never throws: failures come back as status "error" results. */
export async function runEvaluator(definition: EvaluatorDefinition, input: ParsedInput, options: RunOptions): Promise<EvaluationResult> {
  const model = options.model ?? (input.settings as { model?: unknown } | null)?.model;
  const storedProvider = definition.usesLlm === true && typeof model === 'string' && options.providers?.has(splitModel(model).provider) === true;
  const required = [...definition.requiredEnv, ...(storedProvider ? [] : (definition.requiredEnvFor?.(input.settings) ?? []))];
  const missing = required.find((v) => !options.env[v]);
  if (missing) {
    return errorResult(new MissingConfigurationError(missing, `${definition.path} needs it`));
  }

  const controller = new AbortController();
  const seconds = Math.round(options.timeoutMs / 100) / 10;
  const timer = setTimeout(
    () => controller.abort(new EvaluatorError('Timeout', `${definition.path} did not finish within ${seconds} s (provider calls and retries included)`)),
    options.timeoutMs,
  );
  const onOuterAbort = () => controller.abort(options.signal?.reason ?? new EvaluatorError('Aborted', 'the evaluation was cancelled'));
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const aborted = new Promise<never>((_, reject) => {
    // The reason is the EvaluatorError given to abort() above, or the caller's signal's.
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
  });
  aborted.catch(() => {});

  const ctx: EvaluatorContext = {
    env: options.env,
    fetch: options.fetch,
    now: options.now,
    signal: controller.signal,
    maxRetries: options.maxRetries,
    providers: options.providers,
  };
  try {
    const running = Promise.resolve().then(() => definition.evaluate({ data: input.data, settings: input.settings, ctx }));
    // A run that loses the race against the deadline must not surface as an unhandled rejection.
    running.catch(() => {});
    return checkResult(await Promise.race([running, aborted]));
  } catch (err) {
    return errorResult(controller.signal.aborted ? controller.signal.reason : err);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
    if (!controller.signal.aborted) controller.abort(new EvaluatorError('Finished', 'the evaluation finished'));
  }
}

const STATUSES = new Set(['processed', 'skipped', 'error']);

/** An evaluator's own result, checked: a NaN score or an unknown status is a bug to report, not to store. */
function checkResult(result: EvaluationResult): EvaluationResult {
  if (!result || !STATUSES.has(result.status)) {
    return errorResult(new EvaluatorError('InvalidResult', `the evaluator returned status ${JSON.stringify(result?.status)}`));
  }
  if (result.score !== undefined && (typeof result.score !== 'number' || !Number.isFinite(result.score))) {
    return errorResult(new EvaluatorError('InvalidResult', `the evaluator returned a score that is not a finite number (${String(result.score)})`));
  }
  if (result.cost && !Number.isFinite(result.cost.amount)) {
    const { cost: _dropped, ...rest } = result;
    return rest;
  }
  return result;
}

const MAX_TRACEBACK_LINES = 40;

export function errorResult(err: unknown): EvaluationResult {
  const error = err instanceof Error ? err : new Error(String(err));
  const type =
    error instanceof EvaluatorError
      ? error.type
      : error.name === 'TimeoutError'
        ? 'Timeout'
        : error.name && error.name !== 'Error'
          ? error.name
          : error.constructor?.name || 'Error';
  // An anticipated failure (configuration, provider, deadline) is explained by its message and
  // causes; a stack into Spyglass' own files only helps with unexpected errors.
  const stack = error instanceof EvaluatorError ? [] : (error.stack?.split('\n').filter((line) => line.trim() !== '') ?? []);
  const traceback = stack.length ? stack.slice(0, MAX_TRACEBACK_LINES) : [`${type}: ${error.message}`];
  let cause = (error as { cause?: unknown }).cause;
  for (let depth = 0; cause instanceof Error && depth < 3; depth++) {
    traceback.push(`Caused by: ${cause.name}: ${cause.message.split('\n')[0]}`);
    cause = (cause as { cause?: unknown }).cause;
  }
  return { status: 'error', error_type: type, details: error.message, traceback };
}
