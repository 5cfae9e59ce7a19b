import type { Executor } from '../../db/index.ts';
import { isUniqueViolation } from '../../db/index.ts';
import type { AnnotationsContext, ScoreConfigScope } from './context.ts';
import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { CreateScoreConfigBody, ScoreConfigView, ScoreInput, ScoreView, UpdateScoreConfigBody } from './scores.schema.ts';
import * as store from './score-store.ts';
import type { ScoreConfigRow } from './score-store.ts';

/*
 * Score configs: what a reviewer scores on a trace (a number within a range, yes/no, or one
 * of named categories). Annotations carry scores that follow them (checked here); the
 * review module's queues name the configs their reviewers fill in.
 */

export async function listScoreConfigs(ctx: AnnotationsContext, { projectId }: ScoreConfigScope): Promise<ScoreConfigView[]> {
  return (await store.listScoreConfigs(ctx.db.orm, projectId)).map(presentScoreConfig);
}

export async function getScoreConfig(ctx: AnnotationsContext, { projectId }: ScoreConfigScope, id: string): Promise<ScoreConfigView> {
  return presentScoreConfig(await findScoreConfig(ctx.db.orm, projectId, id));
}

/** The configs named, in the order named; a missing one is a 400 naming `field.<i>`. */
export async function requireScoreConfigs(db: Executor, { projectId }: ScoreConfigScope, ids: string[], field: string): Promise<ScoreConfigView[]> {
  const found = await store.findScoreConfigs(db, projectId, ids);
  return ids.map((id, i) => {
    const row = found.find((c) => c.id === id);
    if (!row) throw badRequest('unknown_score_config', `${field}.${i}: no score config ${id} in this project`, `${field}.${i}`);
    return presentScoreConfig(row);
  });
}

/** For judge alignment: the config, and the latest value of it people gave each trace (booleans as 1/0, categories by name). */
export async function humanScores(
  ctx: AnnotationsContext,
  { projectId }: ScoreConfigScope,
  id: string,
): Promise<{ config: ScoreConfigView; scores: { traceId: string; value: number | string }[] } | null> {
  const [row] = await store.findScoreConfigs(ctx.db.orm, projectId, [id]);
  if (!row) return null;
  const scores = await store.latestScoresOfConfig(ctx.db.orm, projectId, id);
  return {
    config: presentScoreConfig(row),
    scores: scores.map((s) => ({ traceId: s.traceId, value: row.kind === 'categorical' ? (s.textValue ?? '') : (s.numberValue ?? 0) })),
  };
}

export async function createScoreConfig(ctx: AnnotationsContext, { projectId }: ScoreConfigScope, input: CreateScoreConfigBody): Promise<ScoreConfigView> {
  const now = ctx.clock.now();
  const shape = checkShape(input.kind, input);
  const row = await store.insertScoreConfig(ctx.db.orm, {
    id: newId('score'),
    projectId,
    name: input.name,
    description: input.description ?? null,
    kind: input.kind,
    ...shape,
    createdAt: now,
    updatedAt: now,
  });
  if (!row) throw nameTaken(input.name);
  return presentScoreConfig(row);
}

/** Changes the name, description, range or categories; the kind stays (scores already given keep their meaning). */
export async function updateScoreConfig(ctx: AnnotationsContext, { projectId }: ScoreConfigScope, id: string, input: UpdateScoreConfigBody): Promise<ScoreConfigView> {
  const current = await findScoreConfig(ctx.db.orm, projectId, id);
  const shape = checkShape(current.kind, {
    min: input.min ?? current.minValue ?? undefined,
    max: input.max ?? current.maxValue ?? undefined,
    categories: input.categories ?? (current.categories.length > 0 ? current.categories : undefined),
  });
  try {
    const row = await store.updateScoreConfig(ctx.db.orm, projectId, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...shape,
      updatedAt: ctx.clock.now(),
    });
    if (!row) throw scoreConfigNotFound(id);
    return presentScoreConfig(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(input.name ?? current.name);
    throw err;
  }
}

/** Deletes the config with the scores given by it (queues stop asking for it). */
export async function deleteScoreConfig(ctx: AnnotationsContext, { projectId }: ScoreConfigScope, id: string): Promise<{ id: string; deleted: true }> {
  if (!(await store.deleteScoreConfig(ctx.db.orm, projectId, id))) throw scoreConfigNotFound(id);
  return { id, deleted: true };
}

async function findScoreConfig(db: Executor, projectId: string, id: string): Promise<ScoreConfigRow> {
  const [row] = await store.findScoreConfigs(db, projectId, [id]);
  if (!row) throw scoreConfigNotFound(id);
  return row;
}

/** The columns of a config of this kind: a range for numeric, categories for categorical, nothing else. */
function checkShape(kind: ScoreConfigRow['kind'], input: { min?: number; max?: number; categories?: string[] }) {
  if (kind === 'numeric') {
    if (input.categories !== undefined) throw badRequest('validation_error', 'body.categories: only a categorical config has categories', 'body.categories');
    const min = input.min ?? 0;
    const max = input.max ?? 1;
    if (min >= max) throw badRequest('invalid_range', `body.max: must be greater than min (${min})`, 'body.max');
    return { minValue: min, maxValue: max, categories: [] };
  }
  if (input.min !== undefined || input.max !== undefined) {
    const field = input.min !== undefined ? 'body.min' : 'body.max';
    throw badRequest('validation_error', `${field}: only a numeric config has a range`, field);
  }
  if (kind === 'boolean') {
    if (input.categories !== undefined) throw badRequest('validation_error', 'body.categories: only a categorical config has categories', 'body.categories');
    return { minValue: null, maxValue: null, categories: [] };
  }
  if (!input.categories) throw badRequest('categories_required', 'body.categories: a categorical config needs 2..50 categories', 'body.categories');
  if (new Set(input.categories).size !== input.categories.length) throw badRequest('validation_error', 'body.categories: categories must be distinct', 'body.categories');
  return { minValue: null, maxValue: null, categories: input.categories };
}

/** Scores checked against their configs: what to store for each. A bad one is a 400 naming `field.<i>.value` (or `.configId`). */
export async function checkScores(
  db: Executor,
  projectId: string,
  scores: ScoreInput[],
  field: string,
): Promise<{ config: ScoreConfigRow; numberValue: number | null; textValue: string }[]> {
  const configs = await store.findScoreConfigs(
    db,
    projectId,
    scores.map((s) => s.configId),
  );
  const seen = new Set<string>();
  return scores.map((s, i) => {
    const config = configs.find((c) => c.id === s.configId);
    if (!config) throw badRequest('unknown_score_config', `${field}.${i}.configId: no score config ${s.configId} in this project`, `${field}.${i}.configId`);
    if (seen.has(s.configId)) throw badRequest('duplicate_score', `${field}.${i}.configId: ${config.name} is scored twice`, `${field}.${i}.configId`);
    seen.add(s.configId);
    const at = `${field}.${i}.value`;
    const bad = (why: string) => new AppError(400, 'invalid_score', `${at}: ${why} (score config "${config.name}")`, { field: at });
    if (config.kind === 'numeric') {
      if (typeof s.value !== 'number') throw bad('a number is expected');
      if (s.value < config.minValue! || s.value > config.maxValue!) throw bad(`${s.value} is outside ${config.minValue}..${config.maxValue}`);
      return { config, numberValue: s.value, textValue: String(s.value) };
    }
    if (config.kind === 'boolean') {
      if (typeof s.value !== 'boolean') throw bad('true or false is expected');
      return { config, numberValue: s.value ? 1 : 0, textValue: String(s.value) };
    }
    if (typeof s.value !== 'string' || !config.categories.includes(s.value)) {
      throw bad(`one of ${config.categories.map((c) => JSON.stringify(c)).join(', ')} is expected`);
    }
    return { config, numberValue: null, textValue: s.value };
  });
}

export function presentScoreConfig(r: ScoreConfigRow): ScoreConfigView {
  return {
    id: r.id,
    projectId: r.projectId,
    name: r.name,
    description: r.description,
    kind: r.kind,
    min: r.minValue,
    max: r.maxValue,
    categories: r.categories,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** A stored score as the API answers it: the value in its config's kind. */
export function presentScore(config: Pick<ScoreConfigRow, 'id' | 'name' | 'kind'>, numberValue: number | null, textValue: string | null): ScoreView {
  const value = config.kind === 'numeric' ? (numberValue ?? 0) : config.kind === 'boolean' ? numberValue === 1 : (textValue ?? '');
  return { configId: config.id, name: config.name, kind: config.kind, value };
}

const scoreConfigNotFound = (id: string) => notFound('score_config_not_found', `no score config ${id} in this project`);
const nameTaken = (name: string) => conflict('score_config_exists', `body.name: a score config named "${name}" exists in this project`, 'body.name');
