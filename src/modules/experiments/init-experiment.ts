import { AppError, badRequest, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { Executor } from '../../db/index.ts';
import { experimentPath, type ExperimentsContext } from './context.ts';
import type { InitBody } from './schemas.ts';
import { slugify } from '../../platform/slug.schema.ts';
import * as store from './store.ts';

export interface ExperimentRef {
  slug?: string | null;
  id?: string | null;
  name?: string | null;
  workflowId?: string | null;
  type: string;
  /** The request field names, for the error messages. */
  fields: { slug: string; id: string };
}

/**
 * Finds the experiment a request names (by id, else by slug) or creates it (by slug). A given
 * name or workflowId replaces the stored one; the type never changes.
 */
export async function findOrCreateExperiment(db: Executor, projectId: string, ref: ExperimentRef, now: Date): Promise<store.ExperimentRow> {
  const rename = ref.name ?? null;
  const workflowId = ref.workflowId ?? null;
  if (ref.id) {
    const found = await store.touchExperimentById(db, projectId, ref.id, { rename, workflowId, now });
    if (!found) throw notFound('experiment_not_found', `${ref.fields.id}: no experiment ${ref.id} in this project`);
    return found;
  }
  if (ref.slug === undefined || ref.slug === null) {
    throw badRequest('validation_error', `${ref.fields.slug}: one of ${ref.fields.slug} or ${ref.fields.id} is required`, ref.fields.slug);
  }
  const slug = slugify(ref.slug);
  if (!slug) {
    throw badRequest('validation_error', `${ref.fields.slug}: "${ref.slug}" has no letter or digit to make a slug of`, ref.fields.slug);
  }
  return store.upsertExperiment(db, {
    id: newId('experiment'),
    projectId,
    slug,
    nameOnCreate: ref.slug,
    rename,
    type: ref.type,
    workflowId,
    now,
  });
}

/** POST /api/experiment/init: the experiment's slug (what later calls use) and its page. */
export async function initExperiment(ctx: ExperimentsContext, projectId: string, body: InitBody): Promise<{ path: string; slug: string }> {
  if (!body.experiment_slug && !body.experiment_id) {
    throw new AppError(400, 'validation_error', 'body.experiment_slug: one of experiment_slug or experiment_id is required', {
      field: 'body.experiment_slug',
    });
  }
  const experiment = await findOrCreateExperiment(
    ctx.db.orm,
    projectId,
    {
      slug: body.experiment_slug,
      id: body.experiment_id,
      name: body.experiment_name,
      workflowId: body.workflowId,
      type: body.experiment_type,
      fields: { slug: 'body.experiment_slug', id: 'body.experiment_id' },
    },
    ctx.clock.now(),
  );
  return { path: experimentPath(projectId, experiment.slug), slug: experiment.slug };
}
