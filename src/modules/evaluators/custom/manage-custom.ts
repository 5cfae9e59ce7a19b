import { badRequest, conflict, notFound } from '../../../platform/errors.ts';
import { emitEvent, type EventType } from '../../../platform/events/index.ts';
import { newId } from '../../../platform/ids.ts';
import type { EvaluationScope, EvaluatorsContext } from '../context.ts';
import type { EvaluatorDefinition } from '../types.ts';
import { customDefinition, variablesOf } from './definition.ts';
import { presentCustom } from './presenters.ts';
import { customConfigSchema, type CreateCustomBody, type CustomConfig, type CustomEvaluatorView, type CustomVersionView, type UpdateCustomBody } from './schemas.ts';
import * as store from './store.ts';

/*
 * Custom evaluators: a name, a slug (their path is custom/<slug>) and versions kept as prompt
 * versions are (a change of what the judge is asked makes a new version; name and description
 * are the evaluator's own).
 */

/** A custom evaluator's version, ready to run. */
export interface ResolvedCustom {
  definition: EvaluatorDefinition;
  version: number;
  config: CustomConfig;
}

export async function listCustom(ctx: EvaluatorsContext, projectId: string): Promise<CustomEvaluatorView[]> {
  const found = await store.list(ctx.db.orm, projectId);
  const out: CustomEvaluatorView[] = [];
  for (const row of found) {
    const version = await store.findVersion(ctx.db.orm, projectId, row.id, row.latestVersion);
    if (version) out.push(presentCustom(row, version));
  }
  return out;
}

export async function getCustom(ctx: EvaluatorsContext, projectId: string, slug: string, version?: number): Promise<CustomEvaluatorView> {
  const row = await find(ctx, projectId, slug);
  return presentCustom(row, await versionOf(ctx, row, version ?? row.latestVersion));
}

export async function customVersions(ctx: EvaluatorsContext, projectId: string, slug: string): Promise<CustomVersionView[]> {
  const row = await find(ctx, projectId, slug);
  return (await store.listVersions(ctx.db.orm, projectId, row.id)).map((v) => {
    const config = customConfigSchema.parse(v.config);
    return { version: v.version, ...config, commit_message: v.commitMessage, created_at: v.createdAt.toISOString() };
  });
}

export async function createCustom(ctx: EvaluatorsContext, scope: EvaluationScope, body: CreateCustomBody): Promise<CustomEvaluatorView> {
  const { slug, name, description, ...rest } = body;
  const config = customConfigSchema.parse(rest);
  await checkConfig(ctx, scope, config);
  const now = ctx.clock.now();
  const result = await ctx.db.orm.transaction(async (tx) => {
    const row = await store.insertEvaluator(tx, {
      id: newId('cev'),
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      slug,
      name,
      description: description ?? null,
      latestVersion: 1,
      createdAt: now,
      updatedAt: now,
    });
    if (!row) return null;
    const version = await store.insertVersion(tx, { evaluatorId: row.id, projectId: scope.projectId, version: 1, config, commitMessage: null, createdAt: now });
    await emit(tx, scope, 'custom_evaluator.created', row, 1, now);
    return { row, version };
  });
  if (!result) throw conflict('custom_evaluator_exists', `body.slug: a custom evaluator ${slug} already exists in this project`, 'body.slug');
  return presentCustom(result.row, result.version);
}

/** Changes of the judge (prompt, model, parameters, answer) make a new version; name and description do not. */
export async function updateCustom(ctx: EvaluatorsContext, scope: EvaluationScope, slug: string, body: UpdateCustomBody): Promise<CustomEvaluatorView> {
  const current = await find(ctx, scope.projectId, slug);
  const latest = await versionOf(ctx, current, current.latestVersion);
  const before = customConfigSchema.parse(latest.config);
  const next = customConfigSchema.parse({
    prompt: body.prompt ?? before.prompt,
    model: body.model ?? before.model,
    temperature: body.temperature ?? before.temperature,
    max_output_tokens: body.max_output_tokens ?? before.max_output_tokens,
    answer: body.answer ?? before.answer,
  });
  const changed = JSON.stringify(next) !== JSON.stringify(before);
  if (changed) await checkConfig(ctx, scope, next);
  const now = ctx.clock.now();
  return ctx.db.orm.transaction(async (tx) => {
    const locked = (await store.findBySlug(tx, scope.projectId, slug, true))!;
    let version = latest;
    if (changed) {
      version = await store.insertVersion(tx, {
        evaluatorId: locked.id,
        projectId: scope.projectId,
        version: locked.latestVersion + 1,
        config: next,
        commitMessage: body.commit_message ?? null,
        createdAt: now,
      });
    }
    const row = await store.updateEvaluator(tx, locked.id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description ?? null } : {}),
      latestVersion: version.version,
      updatedAt: now,
    });
    if (changed) await emit(tx, scope, 'custom_evaluator.version_created', row, version.version, now);
    return presentCustom(row, version);
  });
}

export async function removeCustom(ctx: EvaluatorsContext, scope: EvaluationScope, slug: string): Promise<{ slug: string; deleted: true }> {
  const row = await find(ctx, scope.projectId, slug);
  await ctx.db.orm.transaction(async (tx) => {
    await store.deleteEvaluator(tx, scope.projectId, row.id);
    await emit(tx, scope, 'custom_evaluator.deleted', row, row.latestVersion, ctx.clock.now());
  });
  return { slug, deleted: true };
}

/** The version to run (the newest unless pinned); null when the project has no such evaluator. */
export async function resolveCustom(ctx: EvaluatorsContext, projectId: string, slug: string, version?: number): Promise<ResolvedCustom | null> {
  const row = await store.findBySlug(ctx.db.orm, projectId, slug);
  if (!row) return null;
  const v = await store.findVersion(ctx.db.orm, projectId, row.id, version ?? row.latestVersion);
  if (!v) throw badRequest('unknown_version', `settings.version: custom/${slug} has no version ${version} (the newest is ${row.latestVersion})`, 'settings.version');
  const config = customConfigSchema.parse(v.config);
  return { definition: customDefinition({ slug: row.slug, name: row.name, description: row.description, version: v.version, config }), version: v.version, config };
}

/** 400 naming body.model when the model's provider is neither set in the app nor in the environment, body.prompt when it names no variable. */
async function checkConfig(ctx: EvaluatorsContext, scope: EvaluationScope, config: CustomConfig): Promise<void> {
  await ctx.models.providersFor(scope, config.model, 'body.model');
  if (variablesOf(config.prompt).length === 0) {
    throw badRequest('validation_error', 'body.prompt: the template names no variable ({{input}}, {{output}}, {{contexts}}, {{expected_output}}, {{conversation}} or a dataset column); the judge would see nothing to evaluate', 'body.prompt');
  }
}

async function emit(tx: Parameters<typeof emitEvent>[0], scope: EvaluationScope, type: EventType, row: store.CustomRow, version: number, now: Date) {
  await emitEvent(tx, { organizationId: scope.organizationId, projectId: scope.projectId, type, data: { id: row.id, slug: row.slug, path: `custom/${row.slug}`, name: row.name, version } }, now);
}

async function find(ctx: EvaluatorsContext, projectId: string, slug: string): Promise<store.CustomRow> {
  const row = await store.findBySlug(ctx.db.orm, projectId, slug);
  if (!row) throw notFound('custom_evaluator_not_found', `no custom evaluator ${slug} in this project`);
  return row;
}

async function versionOf(ctx: EvaluatorsContext, row: store.CustomRow, version: number): Promise<store.VersionRow> {
  const v = await store.findVersion(ctx.db.orm, row.projectId, row.id, version);
  if (!v) throw notFound('custom_evaluator_version_not_found', `custom/${row.slug} has no version ${version} (the newest is ${row.latestVersion})`);
  return v;
}
