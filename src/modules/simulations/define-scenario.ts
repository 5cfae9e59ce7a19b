/**
 * Scenarios the server runs: defined in the app or over the API (POST/PUT
 * /api/simulations/scenarios). An HTTP agent's headers are sealed with the installation's
 * keyring, as experiments' HTTP targets' are, and only ever answered masked.
 */
import type { z } from 'zod';
import { badRequest, conflict, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { SealedHeaders } from '../experiments/index.ts';
import type { SimulationScope, SimulationsContext } from './context.ts';
import type { ScenarioBody, scenarioView } from './schemas.ts';
import * as store from './store.ts';

/** What the sealed headers of a scenario's agent are bound to (a sealed value copied elsewhere does not open). */
export const headerOwner = (scenarioId: string) => `scenario:${scenarioId}`;
export const HEADER_TARGET = 'agent';

export type StoredAgentTarget =
  | { type: 'http'; url: string; output_field: string; timeout_ms: number; sealed_headers?: SealedHeaders }
  | { type: 'prompt'; prompt: string; version?: number; model?: string };

export function presentScenario(s: store.ScenarioRow): z.output<typeof scenarioView> {
  const t = s.target as StoredAgentTarget;
  const target =
    t.type === 'http'
      ? { type: 'http' as const, url: t.url, output_field: t.output_field, timeout_ms: t.timeout_ms, ...(t.sealed_headers ? { headers: t.sealed_headers.masked } : {}) }
      : { type: 'prompt' as const, prompt: t.prompt, ...(t.version !== undefined ? { version: t.version } : {}), ...(t.model ? { model: t.model } : {}) };
  return {
    id: s.id,
    name: s.name,
    scenarioSetId: s.scenario_set_id,
    description: s.description,
    persona: s.persona,
    goal: s.goal,
    criteria: s.criteria,
    maxTurns: s.max_turns,
    target,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}

async function storedTarget(ctx: SimulationsContext, scope: SimulationScope, id: string, body: ScenarioBody, before: store.ScenarioRow | null): Promise<StoredAgentTarget> {
  const t = body.target;
  if (t.type === 'prompt') {
    // The prompt must exist now (400 naming it); the version run is pinned when a batch starts.
    await ctx.server.prompts.version(scope, t.prompt, t.version).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      throw badRequest('validation_error', `body.target.prompt: ${message}`, 'body.target.prompt');
    });
    if (t.model) await ctx.server.models.check(scope, t.model, 'body.target.model');
    return { type: 'prompt', prompt: t.prompt, ...(t.version !== undefined ? { version: t.version } : {}), ...(t.model ? { model: t.model } : {}) };
  }
  const previous = before && (before.target as StoredAgentTarget).type === 'http' ? ((before.target as Extract<StoredAgentTarget, { type: 'http' }>).sealed_headers ?? null) : null;
  const sealed = ctx.server.headers.merge(headerOwner(id), HEADER_TARGET, t.headers, previous, 'body.target.headers');
  return { type: 'http', url: t.url, output_field: t.output_field, timeout_ms: t.timeout_ms, ...(sealed ? { sealed_headers: sealed } : {}) };
}

async function save(ctx: SimulationsContext, scope: SimulationScope, id: string, body: ScenarioBody, before: store.ScenarioRow | null) {
  const now = ctx.clock.now().getTime();
  const row: store.ScenarioRow = {
    id,
    scenario_set_id: body.scenarioSetId,
    name: body.name,
    description: body.description,
    persona: body.persona,
    goal: body.goal,
    criteria: body.criteria,
    max_turns: body.maxTurns,
    target: await storedTarget(ctx, scope, id, body, before),
    created_at: before?.created_at ?? now,
    updated_at: now,
  };
  if (!(await store.saveScenario(ctx.db.orm, scope.projectId, row))) {
    throw conflict('name_taken', `body.name: the set ${body.scenarioSetId} already has a scenario named "${body.name}"`, 'body.name');
  }
  return presentScenario(row);
}

export function createScenario(ctx: SimulationsContext, scope: SimulationScope, body: ScenarioBody) {
  return save(ctx, scope, newId('scenario'), body, null);
}

export async function replaceScenario(ctx: SimulationsContext, scope: SimulationScope, id: string, body: ScenarioBody) {
  return save(ctx, scope, id, body, await requireScenario(ctx, scope.projectId, id));
}

export async function requireScenario(ctx: SimulationsContext, projectId: string, id: string): Promise<store.ScenarioRow> {
  const found = await store.findScenario(ctx.db.orm, projectId, id);
  if (!found) throw notFound('not_found', `no scenario ${id} in this project`);
  return found;
}

export async function listScenarios(ctx: SimulationsContext, projectId: string, scenarioSetId: string | undefined) {
  return { scenarios: (await store.listScenarios(ctx.db.orm, projectId, scenarioSetId ?? null)).map(presentScenario) };
}

export async function removeScenario(ctx: SimulationsContext, projectId: string, id: string) {
  if (!(await store.deleteScenario(ctx.db.orm, projectId, id))) throw notFound('not_found', `no scenario ${id} in this project`);
  return { deleted: true };
}
