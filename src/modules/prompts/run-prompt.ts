import { randomBytes } from 'node:crypto';
import type { PromptMessage } from '../../db/schema/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, badRequest } from '../../platform/errors.ts';
import type { NormalizedSpan } from '../traces/index.ts';
import type { ModelParameters, RunBody, RunResponse } from './schemas.ts';
import type { PreparedPromptRun, PromptRunner, PromptScope, PromptsContext, RunStreamEvent, VersionSelection } from './context.ts';
import { checkToolChoice } from './declarations.ts';
import type { PromptView } from './presenters.ts';
import { compilePrompt, getPrompt, render } from './read-prompts.ts';

/** What runPrompt works with: the clock, the runner, and the version it runs, rendered. */
interface RunPromptDeps {
  clock: Clock;
  runner: PromptRunner;
  /** The prompt version `select` picks, rendered with the run's variables (compilePrompt). */
  compile(select: VersionSelection): Promise<PromptView>;
}

/**
 * "Try it": renders a version with `variables` (the checks of compile), sends it to the
 * model and records the call as a trace of the project.
 */
export async function runVersion(ctx: PromptsContext, scope: PromptScope, ref: string, input: RunBody, signal?: AbortSignal, onEvent?: (event: RunStreamEvent) => void): Promise<RunResponse> {
  const runner = requireRunner(ctx);
  return runPrompt({ clock: ctx.clock, runner, compile: (select) => compilePrompt(ctx, scope, ref, input.variables ?? {}, select) }, scope, input, signal, onEvent);
}

/**
 * One version, looked up once, for many runs (an experiment's cells): each call renders it
 * with its variables and runs it as `runVersion` does. The call's trace is recorded without the
 * call waiting for its commit: `recorded` settles when it is stored (or failed), so a
 * caller making many calls keeps its provider busy meanwhile and stores what refers to
 * the trace only after it.
 */
export async function prepareRuns(ctx: PromptsContext, scope: PromptScope, ref: string, select: VersionSelection): Promise<PreparedPromptRun> {
  const runner = requireRunner(ctx);
  const prompt = await getPrompt(ctx, scope, ref, select);
  return (input, signal) => {
    // The first recording (a run records one trace) settles `recorded`; later calls do nothing.
    const trace = { settle: (_recording: Promise<void>) => {} };
    const recorded = new Promise<void>((resolve, reject) => {
      trace.settle = (recording) => {
        trace.settle = () => {};
        recording.then(resolve, reject);
      };
    });
    const deferred: PromptRunner = {
      complete: (...args) => runner.complete(...args),
      record: (recordScope, spans) => {
        trace.settle(runner.record(recordScope, spans));
        return Promise.resolve();
      },
    };
    const answer = runPrompt({ clock: ctx.clock, runner: deferred, compile: () => Promise.resolve(render(prompt, input.variables ?? {})) }, scope, input, signal);
    // Refused before any call (nothing to record): settled at once.
    void answer.then(
      () => trace.settle(Promise.resolve()),
      () => trace.settle(Promise.resolve()),
    );
    return { answer, recorded };
  };
}

function requireRunner(ctx: PromptsContext): PromptRunner {
  if (!ctx.runner) throw new AppError(503, 'runner_unavailable', 'prompt runs are not wired in this server');
  return ctx.runner;
}

/**
 * "Try it" and the playground: renders a version with `variables` (the checks of compile),
 * sends it to the model (the version's, or `input.model`) with the version's parameters and
 * the run's over them, and records the call as a trace of the project, also when the provider
 * fails (the error then answers with the trace id in its meta). With `onEvent` the answer
 * streams; the time to its first event is the run's ttft_ms.
 */
async function runPrompt(deps: RunPromptDeps, ctx: PromptScope, input: RunBody, signal?: AbortSignal, onEvent?: (event: RunStreamEvent) => void): Promise<RunResponse> {
  const { clock, runner } = deps;
  const select: VersionSelection = input.version !== undefined ? { version: input.version } : input.tag !== undefined ? { tag: input.tag } : {};
  if (input.version !== undefined && input.tag !== undefined) throw badRequest('conflicting_selection', 'version and tag: send one of them, not both', 'version');
  const prompt = await deps.compile(select);
  const model = input.model ?? prompt.model;
  const parameters: ModelParameters = { ...prompt.parameters, ...input.parameters };
  checkToolChoice(parameters);
  const messages: PromptMessage[] = [...(prompt.prompt.trim() ? [{ role: 'system' as const, content: prompt.prompt }] : []), ...prompt.messages];
  const traceId = randomBytes(16).toString('hex');
  const started = clock.now().getTime();
  const t0 = performance.now();
  let ttft: number | null = null;
  const span = (fields: Partial<NormalizedSpan>) =>
    runSpan({ traceId, started, latency: Math.round(performance.now() - t0), firstTokenAt: ttft === null ? null : started + ttft, model, messages, prompt, parameters, ctx }, fields);
  const scope = { organizationId: ctx.organizationId, projectId: ctx.projectId };
  const stream = onEvent
    ? (event: RunStreamEvent) => {
        ttft ??= Math.round(performance.now() - t0);
        onEvent(event);
      }
    : undefined;
  let answer: Awaited<ReturnType<PromptRunner['complete']>>;
  try {
    answer = await runner.complete(scope, model, messages, signal, { parameters, outputSchema: prompt.response_format?.json_schema, onEvent: stream });
  } catch (err) {
    // Only calls that reached the provider are traces; a refused model or missing key is not a run.
    if (err instanceof AppError && err.status >= 500 && err.code !== 'provider_not_configured') {
      await runner.record(scope, [span({ error: { has_error: true, message: err.message, stacktrace: [] }, status: { code: 'error', message: err.message } })]);
      throw new AppError(err.status, err.code, err.message, { meta: { ...err.meta, trace_id: traceId } });
    }
    throw err;
  }
  const latency = Math.round(performance.now() - t0);
  const { usage } = answer;
  await runner.record(scope, [
    span({
      model: answer.responseModel,
      vendor: answer.provider,
      finished_at: started + latency,
      output: {
        type: 'chat_messages',
        value: [
          {
            role: 'assistant',
            content: answer.text,
            ...(answer.toolCalls.length
              ? { tool_calls: answer.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) } })) }
              : {}),
          },
        ],
      },
      metrics: { ...usage, tokens_estimated: false, cost: answer.cost?.amount ?? null },
    }),
  ]);
  return {
    output: { role: 'assistant', content: answer.text },
    tool_calls: answer.toolCalls,
    finish_reason: answer.finishReason,
    model: answer.responseModel,
    usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens },
    cost: answer.cost ? { currency: 'USD', amount: answer.cost.amount } : null,
    latency_ms: latency,
    ttft_ms: ttft,
    parameters,
    trace_id: traceId,
  };
}

/** The span a run records: the rendered messages in, `fields` (the answer or the error) over the rest. */
function runSpan(
  run: {
    traceId: string;
    started: number;
    latency: number;
    firstTokenAt: number | null;
    model: string;
    messages: PromptMessage[];
    prompt: PromptView;
    parameters: ModelParameters;
    ctx: PromptScope;
  },
  fields: Partial<NormalizedSpan>,
): NormalizedSpan {
  const { prompt, ctx } = run;
  return {
    trace_id: run.traceId,
    span_id: randomBytes(8).toString('hex'),
    parent_id: null,
    name: `prompt ${prompt.handle ?? prompt.id} v${prompt.version}`,
    type: 'llm',
    model: run.model,
    vendor: null,
    started_at: run.started,
    finished_at: run.started + run.latency,
    first_token_at: run.firstTokenAt,
    params: run.parameters,
    metrics: { prompt_tokens: null, completion_tokens: null, cached_input_tokens: null, reasoning_tokens: null, tokens_estimated: false, cost: null },
    input: { type: 'chat_messages', value: run.messages.map((m) => ({ role: m.role, content: m.content })) },
    output: null,
    error: null,
    trace_metadata: {
      labels: ['prompt-run'],
      ...(ctx.userId ? { user_id: ctx.userId } : {}),
      extra: { prompt_id: prompt.id, prompt_handle: prompt.handle, prompt_version: prompt.version, prompt_version_id: prompt.versionId },
    },
    attributes: { 'spyglass.prompt.id': prompt.id, 'spyglass.prompt.version': prompt.version },
    resource: { 'service.name': 'spyglass' },
    scope: { name: 'spyglass.prompts', version: null },
    events: [],
    links: [],
    status: { code: 'ok', message: null },
    kind: 'client',
    ...fields,
  };
}
