import type { Database } from '../../db/index.ts';
import type { PromptMessage } from '../../db/schema/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { NormalizedSpan } from '../traces/index.ts';
import type { ModelParameters, RunResponse, ToolCall } from './schemas.ts';

/** What the prompts use cases work with (built by module.ts). */
export interface PromptsContext {
  db: Database;
  clock: Clock;
  /** "Try it" and experiment runs: null where runs are not wired (they answer 503). */
  runner: PromptRunner | null;
}

/** Who is asking, and through which project. */
export interface PromptScope {
  projectId: string;
  organizationId: string;
  /** The user of a personal key (the default author); null for project and service keys. */
  userId: string | null;
}

/** `?version=` and `?tag=` of reads: the same selection as `ref:<version>` / `ref:<tag>`. */
export interface VersionSelection {
  version?: number | 'latest';
  tag?: string;
}

/** What a streamed run sends before its final `done` (the answer): text as it comes, and each tool call. */
export type RunStreamEvent = { type: 'text'; text: string } | ({ type: 'tool_call' } & ToolCall);

/** What "Try it" needs of other modules (wired by app.ts): the judges' model provider, and trace ingest. */
export interface PromptRunner {
  /** One chat completion; throws HTTP errors (400 on the model, 503 not configured, 502, 504). */
  complete(
    /** The project whose model providers the model's name is looked up in. */
    scope: { organizationId: string; projectId: string },
    model: string,
    messages: PromptMessage[],
    signal: AbortSignal | undefined,
    options: {
      parameters: ModelParameters;
      /** The version's JSON Schema output: the response format when parameters name none. */
      outputSchema?: { name: string; schema: Record<string, unknown> };
      /** Stream: each piece of text and each tool call as it arrives. */
      onEvent?: (event: RunStreamEvent) => void;
    },
  ): Promise<{
    text: string;
    toolCalls: ToolCall[];
    finishReason: string;
    /** e.g. openai */
    provider: string;
    responseModel: string;
    usage: { prompt_tokens: number; completion_tokens: number; cached_input_tokens: number; reasoning_tokens: number };
    cost?: { currency: string; amount: number };
  }>;
  /** Stores spans as a trace of the project. */
  record(scope: { organizationId: string; projectId: string }, spans: NormalizedSpan[]): Promise<void>;
}

/** A prepared version's run (prepareRuns): the answer, and when its trace is stored. */
export type PreparedPromptRun = (
  input: { variables?: Record<string, unknown>; model?: string },
  signal?: AbortSignal,
) => { answer: Promise<RunResponse>; recorded: Promise<void> };
