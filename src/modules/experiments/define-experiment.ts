import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { columnsAsOf, datasetForRuns, datasetName, type DatasetForRuns } from '../datasets/index.ts';
import type { PlatformDeps, PlatformScope } from './platform-context.ts';
import type { SealedHeaders } from './target-headers.ts';
import type { definitionResponse, DefinitionBody, TargetDefinition } from './schemas.ts';
import { slugify } from '../../platform/slug.schema.ts';
import { CONSTANT } from './sources.ts';
import * as store from './store.ts';
import type { z } from 'zod';

type PromptTarget = Extract<TargetDefinition, { type: 'prompt' }>;
type HttpTarget = Extract<TargetDefinition, { type: 'http' }>;

/**
 * A judge as a run's target (judge-run.ts): each row's data given to an evaluator at a pinned
 * version, its answer the cell's output; `trace` names the column holding the trace the row
 * judges (the row links to it). Only runs hold one: a saved definition has prompts and agents.
 */
export interface JudgeTarget {
  id: string;
  name: string;
  type: 'evaluator';
  evaluator: string;
  settings: Record<string, unknown>;
  /** the judge's data keys: key to dataset.<column> */
  mapping: Record<string, string>;
  trace?: string;
}

/** A target as stored: an HTTP target's headers sealed (target-headers.ts), never in clear. */
export type DefinedTarget = (PromptTarget & { name: string }) | (Omit<HttpTarget, 'headers'> & { name: string; sealed_headers?: SealedHeaders });
/** A target of a run's plan: one of a definition, or a judge (judge-run.ts). */
export type StoredTarget = DefinedTarget | JudgeTarget;

/** A definition as stored: every default filled, evaluators by catalogue path, the dataset by id. */
export interface StoredDefinition {
  dataset: { id: string; version: number | null } | null;
  targets: DefinedTarget[];
  evaluators: { id: string; evaluator: string; name: string; settings: Record<string, unknown>; mapping: Record<string, string> }[];
  concurrency: number;
  /** how many times each row runs on each target; absent in definitions stored before repetitions: 1 */
  repetitions?: number;
}

/** Slugs that would shadow the spec's own paths under /api/experiments. */
const RESERVED_SLUGS = new Set(['runs']);

/**
 * PUT /api/experiments/{slug}/definition: creates the platform-run experiment of the slug, or
 * replaces its definition. Every reference is checked now (400 naming the field): the dataset
 * and its version, prompts and their inputs, evaluators, their settings and data keys.
 */
export async function defineExperiment(deps: PlatformDeps, scope: PlatformScope, rawSlug: string, body: DefinitionBody) {
  const slug = slugify(rawSlug);
  if (!slug) throw badRequest('validation_error', `params.slug: "${rawSlug}" has no letter or digit to make a slug of`, 'params.slug');
  if (RESERVED_SLUGS.has(slug)) throw badRequest('validation_error', `params.slug: "${slug}" is reserved (it is a path of the experiments API)`, 'params.slug');
  const checked = await checkDefinition(deps, scope, body);
  const now = deps.clock.now();
  let definition = checked;
  const experiment = await deps.db.orm.transaction(async (tx) => {
    const found = await store.insertPlatformExperiment(tx, { id: newId('experiment'), projectId: scope.projectId, slug, name: body.name ?? null, now });
    if (found.type !== 'EVALUATIONS_V3') {
      throw conflict('slug_conflict', `params.slug: experiment "${slug}" is logged by an SDK (${found.type}); a platform-run experiment needs another slug`, 'params.slug');
    }
    const previous = ((await store.findDefinition(tx, scope.projectId, found.id))?.definition as unknown as StoredDefinition | undefined)?.targets ?? [];
    definition = { ...checked, targets: checked.targets.map((t, i) => sealTargetHeaders(deps, found.id, t, body.targets[i], previous, i)) };
    await store.saveDefinition(tx, { experimentId: found.id, projectId: scope.projectId, definition, now });
    return found;
  });
  return presentDefinition(deps, scope, experiment, { definition, updatedAt: now });
}

/** GET /api/experiments/{slug}/definition. */
export async function readDefinition(deps: PlatformDeps, scope: PlatformScope, rawSlug: string) {
  const { experiment, definition } = await requirePlatformExperiment(deps, scope.projectId, rawSlug);
  return presentDefinition(deps, scope, experiment, definition);
}

export async function requirePlatformExperiment(deps: PlatformDeps, projectId: string, rawSlug: string) {
  const experiment = await store.findExperimentBySlug(deps.db.orm, projectId, slugify(rawSlug));
  const row = experiment && experiment.type === 'EVALUATIONS_V3' ? await store.findDefinition(deps.db.orm, projectId, experiment.id) : null;
  if (!experiment || !row) {
    throw notFound('experiment_not_found', `no experiment "${rawSlug}" the platform can run in this project (SDK-logged experiments hold no targets)`);
  }
  return { experiment, definition: { definition: row.definition as unknown as StoredDefinition, updatedAt: row.updatedAt } };
}

/** An HTTP target's headers as sent, merged with the stored ones of the same target id (target-headers.ts), sealed. */
function sealTargetHeaders(deps: PlatformDeps, experimentId: string, target: DefinedTarget, sent: TargetDefinition, previous: DefinedTarget[], i: number): DefinedTarget {
  if (target.type !== 'http' || sent.type !== 'http') return target;
  const before = previous.find((p) => p.id === target.id);
  const sealed = deps.targetHeaders.merge(experimentId, target.id, sent.headers, before?.type === 'http' ? (before.sealed_headers ?? null) : null, `body.targets.${i}.headers`);
  return sealed ? { ...target, sealed_headers: sealed } : target;
}

async function presentDefinition(
  deps: PlatformDeps,
  scope: PlatformScope,
  e: store.ExperimentRow,
  d: { definition: StoredDefinition; updatedAt: Date },
): Promise<z.output<typeof definitionResponse>> {
  const def = d.definition;
  let dataset: z.output<typeof definitionResponse>['dataset'] = null;
  if (def.dataset) {
    const found = await datasetForRuns(deps.db.orm, scope.projectId, def.dataset.id).catch(() => null);
    // A deleted dataset keeps its name here, so the setup can say which one is gone.
    const name = found?.name ?? (await datasetName(deps.db.orm, scope.projectId, def.dataset.id)) ?? def.dataset.id;
    dataset = { id: def.dataset.id, slug: found?.slug ?? def.dataset.id, name, version: def.dataset.version, deleted: !found };
  }
  return {
    id: e.id,
    slug: e.slug,
    name: e.name,
    type: 'EVALUATIONS_V3',
    dataset,
    // Header values are secrets (an agent's key): only their masked values are answered.
    targets: def.targets.map((t) => {
      if (t.type !== 'http') return t;
      const { sealed_headers: sealed, ...rest } = t;
      return sealed ? { ...rest, headers: sealed.masked } : rest;
    }),
    evaluators: def.evaluators,
    concurrency: def.concurrency,
    repetitions: def.repetitions ?? 1,
    createdAt: e.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

async function checkDefinition(deps: PlatformDeps, scope: PlatformScope, body: DefinitionBody): Promise<StoredDefinition> {
  let dataset: DatasetForRuns | null = null;
  let columns: string[] | null = null;
  if (body.dataset) {
    dataset = await datasetForRuns(deps.db.orm, scope.projectId, body.dataset.id, 'body.dataset.id');
    const cols = await columnsAsOf(deps.db.orm, dataset, body.dataset.version ?? dataset.version, 'body.dataset.version');
    columns = cols.map((c) => c.name);
  }
  const checkSource = (value: string, field: string) => {
    if (value.startsWith('dataset.') && columns) {
      const column = value.slice('dataset.'.length);
      if (!columns.includes(column)) {
        throw badRequest('invalid_column', `${field}: the dataset has no column "${column}" (its columns: ${columns.join(', ') || 'none'})`, field);
      }
    }
  };

  const targetIds = new Set<string>();
  const targets: StoredDefinition['targets'] = [];
  for (const [i, t] of body.targets.entries()) {
    const field = `body.targets.${i}`;
    if (targetIds.has(t.id)) throw badRequest('validation_error', `${field}.id: "${t.id}" is used by another target`, `${field}.id`);
    targetIds.add(t.id);
    if (t.type === 'http') {
      const { headers: _sealedLater, ...rest } = t;
      targets.push({ ...rest, name: t.name ?? t.id });
      continue;
    }
    if (t.version !== undefined && t.tag !== undefined) throw badRequest('validation_error', `${field}.tag: send version or tag, not both`, `${field}.tag`);
    const prompt = await deps.prompts.get(scope, t.prompt, { version: t.version, tag: t.tag }).catch((err: unknown) => {
      if (err instanceof AppError && err.status === 404) throw badRequest('prompt_not_found', `${field}.prompt: ${err.message}`, `${field}.prompt`);
      throw err;
    });
    const variables: Record<string, string> = {};
    for (const [name, value] of Object.entries(t.variables ?? {})) {
      if (!prompt.inputs.includes(name)) {
        throw badRequest('validation_error', `${field}.variables.${name}: prompt ${t.prompt} has no input "${name}" (its inputs: ${prompt.inputs.join(', ') || 'none'})`, `${field}.variables.${name}`);
      }
      if (!value.startsWith('dataset.') && !value.startsWith(CONSTANT)) {
        throw badRequest('validation_error', `${field}.variables.${name}: a prompt input comes from dataset.<column> or constant:<text>`, `${field}.variables.${name}`);
      }
      checkSource(value, `${field}.variables.${name}`);
      variables[name] = value;
    }
    for (const input of prompt.inputs) {
      if (variables[input]) continue;
      if (columns && !columns.includes(input)) {
        throw badRequest(
          'validation_error',
          `${field}.variables.${input}: prompt ${t.prompt} needs input "${input}" and the dataset has no column of that name; map it to a column or a constant (variables: {"${input}": "dataset.<column>" or "constant:<text>"})`,
          `${field}.variables.${input}`,
        );
      }
      variables[input] = `dataset.${input}`;
    }
    targets.push({ ...t, name: t.name ?? `${prompt.handle ?? prompt.id} v${t.version ?? prompt.version}`, variables });
  }

  const evaluatorIds = new Set<string>();
  const evaluators: StoredDefinition['evaluators'] = [];
  for (const [i, e] of body.evaluators.entries()) {
    const field = `body.evaluators.${i}`;
    if (evaluatorIds.has(e.id)) throw badRequest('validation_error', `${field}.id: "${e.id}" is used by another evaluator`, `${field}.id`);
    evaluatorIds.add(e.id);
    const found = await deps.evaluators.describe(scope, e.evaluator, e.settings ?? {}).catch((err: unknown) => {
      if (err instanceof AppError && err.status === 400) {
        const inner = err.field ?? 'settings';
        throw badRequest(err.code, `${field}.${err.message}`, `${field}.${inner}`);
      }
      throw err;
    });
    const mapping: Record<string, string> = {};
    for (const [key, value] of Object.entries(e.mapping ?? {})) {
      if (!found.dataKeys.includes(key)) {
        throw badRequest('validation_error', `${field}.mapping.${key}: ${found.path} has no data key "${key}" (its keys: ${found.dataKeys.join(', ')})`, `${field}.mapping.${key}`);
      }
      checkSource(value, `${field}.mapping.${key}`);
      mapping[key] = value;
    }
    for (const key of found.dataKeys) {
      if (mapping[key]) continue;
      if (key === 'output') mapping[key] = 'target.output';
      else if (!columns || columns.includes(key)) mapping[key] = `dataset.${key}`;
      else if (found.requiredKeys.includes(key)) {
        throw badRequest(
          'validation_error',
          `${field}.mapping.${key}: ${found.path} needs "${key}" and the dataset has no column of that name; map it (mapping: {"${key}": "dataset.<column>" or "target.output"})`,
          `${field}.mapping.${key}`,
        );
      }
    }
    evaluators.push({ id: e.id, evaluator: found.path, name: e.name ?? found.name, settings: e.settings ?? {}, mapping });
  }

  return {
    dataset: dataset ? { id: dataset.id, version: body.dataset?.version ?? null } : null,
    targets,
    evaluators,
    concurrency: body.concurrency,
    repetitions: body.repetitions,
  };
}
