import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Keyring } from '../../platform/crypto.ts';
import type { ProviderView } from './schemas.ts';

export interface Scope {
  organizationId: string;
  projectId: string;
}

/** A provider with its key opened: handed to the evaluators for one call, never presented. */
export interface OpenedProvider {
  name: string;
  kind: ProviderView['kind'];
  apiKey: string;
  baseUrl: string | null;
}

/** Deadline and retries of a model call (a judge's evaluation, a completion, embeddings). */
export interface ModelCallLimits {
  /** Deadline of one call, all its retries included (a judge's whole evaluation). */
  timeoutMs: number;
  /** Retries of a failed provider call (HTTP 408/429/5xx, network errors). */
  maxRetries: number;
}

/** What the module is given when the app is built. */
export interface ModelProviderPorts {
  /** Provider configuration read from the environment by config.ts (OPENAI_API_KEY, ...): the fallback provider. */
  env: Readonly<Record<string, string | undefined>>;
  fetch: typeof fetch;
  /** The server's environment fallback: the models offered without a provider set in the app. */
  environmentModels(): string[];
}

/** What the module's use cases work with (built by module.ts). */
export interface ModelProviderContext extends ModelProviderPorts {
  db: Database;
  /** One object, read at each call: tests shorten it. */
  limits: ModelCallLimits;
  clock: Clock;
  /** Provider keys are sealed with their row's id as associated data. */
  keyring: Keyring;
  /** Recent lookups of `resolveProvider`, by organization, project and name; cleared by every change. */
  resolved: Map<string, { at: number; provider: Promise<OpenedProvider | null> }>;
}
