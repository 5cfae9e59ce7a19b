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

/** What the module needs of the one calling models (the evaluators' provider client), wired in app.ts. */
export interface ModelProviderPorts {
  /** One tiny completion with this provider (the "test" route); throws an AppError (502, 504) when it fails. */
  probe(provider: OpenedProvider, modelId: string): Promise<{ text: string; responseModel: string }>;
  /** The model ids a provider's own /models lists; throws an AppError (502, 504) when it cannot be read. */
  listModels(provider: OpenedProvider): Promise<string[]>;
  /** The server's environment fallback: the models offered without a provider set in the app. */
  environmentModels(): string[];
}

/** What the module's use cases work with (built by module.ts). */
export interface ModelProviderContext extends ModelProviderPorts {
  db: Database;
  clock: Clock;
  /** Provider keys are sealed with their row's id as associated data. */
  keyring: Keyring;
  /** Recent lookups of `resolveProvider`, by organization, project and name; cleared by every change. */
  resolved: Map<string, { at: number; provider: Promise<OpenedProvider | null> }>;
}
