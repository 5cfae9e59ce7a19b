import type { z } from 'zod';

// The shapes of a call to a model, shared by the provider client (provider.ts) and the
// Anthropic client it delegates to (anthropic.ts): neither imports the other's types.

export type ProviderKind = 'openai' | 'openai_compatible' | 'azure_openai' | 'anthropic';

/** A provider set in the app, with its key opened: only ever held in memory for one call. */
export interface ProviderConfig {
  name: string;
  kind: ProviderKind;
  apiKey: string;
  baseUrl: string | null;
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
  /** Default 0. */
  temperature?: number;
}

/** Model parameters and tools of a chat, as OpenAI's chat completions name them (the prompts module validates them). */
export interface ChatParameters {
  temperature?: number;
  max_tokens?: number;
  top_p?: number;
  stop?: string | string[];
  seed?: number;
  response_format?: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } };
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown> } }>;
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
}

export interface ToolCallEvent {
  id: string;
  name: string;
  /** As the model sent them: an object when they parse as JSON. */
  arguments: unknown;
}

export type ChatEvent = { type: 'text'; text: string } | ({ type: 'tool_call' } & ToolCallEvent);
