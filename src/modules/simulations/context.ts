import type { z } from 'zod';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { JobQueue } from '../../platform/jobs/index.ts';
import type { HttpAgentDeps, PreparedPrompt, TargetHeaders } from '../experiments/index.ts';
import type { Redactor } from '../privacy/index.ts';

/** Who acts: the request's project and organization, and the user of a personal key. */
export interface SimulationScope {
  organizationId: string;
  projectId: string;
  userId: string | null;
}

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A forced tool call: the judge's answer is the tool's arguments, validated with `input`. */
export interface ToolCall<T extends z.ZodType> {
  system: string;
  prompt: string;
  tool: { name: string; description: string; input: T };
}

/**
 * What server-run simulations need of other modules, wired by app.ts: the project's model
 * providers (the judges' way to a model), prompt running, HTTP agent calls as experiments make
 * them, the keyring for agents' headers, and the job queue experiments' platform runs use.
 */
export interface ServerRunPorts {
  models: {
    /** 400 naming `field` when the project has no provider of this model's name (and the environment none either). */
    check(scope: SimulationScope, model: string, field: string): Promise<void>;
    /** One chat completion's text; throws an AppError naming the provider's failure. */
    chat(scope: SimulationScope, model: string, messages: ChatTurn[], signal: AbortSignal): Promise<string>;
    callTool<T extends z.ZodType>(scope: SimulationScope, model: string, call: ToolCall<T>, signal: AbortSignal): Promise<z.output<T>>;
  };
  prompts: {
    /** The version a reference means now (404/400 naming the prompt). */
    version(scope: SimulationScope, ref: string, version: number | undefined): Promise<number>;
    prepare(scope: SimulationScope, ref: string, select: { version?: number }): Promise<PreparedPrompt>;
  };
  agents: HttpAgentDeps;
  headers: TargetHeaders;
  queue: JobQueue;
  /** Wakes the queue's runner (it also polls). */
  kick(): void;
  publicUrl: string | null;
}

/** What the simulations module needs: its database, the clock, the project's privacy at ingest, and what server runs use. */
export interface SimulationsContext {
  db: Database;
  clock: Clock;
  redactor?: (projectId: string, path: string) => Promise<Pick<Redactor, 'active' | 'value' | 'take'>>;
  server: ServerRunPorts;
}
