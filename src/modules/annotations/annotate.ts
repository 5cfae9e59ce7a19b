import type { Executor } from '../../db/index.ts';
import { badRequest } from '../../platform/errors.ts';
import { emitEvent, emitEvents } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { userEmail as emailOfUser } from '../organizations/index.ts';
import type { AnnotationScope, AnnotationsContext } from './context.ts';
import { presentAnnotation, type AnnotationView } from './presenters.ts';
import { annotationNotFound, withScores } from './read-annotations.ts';
import { checkScores, presentScore } from './score-configs.ts';
import * as scoreStore from './score-store.ts';
import type { CreateAnnotationBody, UpdateAnnotationBody } from './schemas.ts';
import * as store from './store.ts';

/**
 * A comment as the project's privacy settings store it. Called before the transaction that
 * writes it (the settings are read outside it: PGlite has one connection).
 */
export async function redactedComment<T extends string | null | undefined>(ctx: AnnotationsContext, projectId: string, comment: T): Promise<T> {
  if (typeof comment !== 'string' || !ctx.redactor) return comment;
  const r = await ctx.redactor(projectId, 'annotations');
  if (!r.active) return comment;
  const out = r.text(comment, 'comment');
  r.take();
  return out as T;
}

export async function createAnnotation(ctx: AnnotationsContext, scope: AnnotationScope, traceId: string, input: CreateAnnotationBody): Promise<AnnotationView> {
  checkAnchor(input);
  const now = ctx.clock.now();
  const redacted = { ...input, comment: await redactedComment(ctx, scope.projectId, input.comment) };
  return ctx.db.orm.transaction((tx) => createAnnotationIn(tx, scope, traceId, redacted, now));
}

/**
 * Writes an annotation (with its scores, checked against their configs) in the caller's
 * transaction, and its events: annotation.created, and score.created per score. The review
 * module completes a queue item with it, in the transaction that marks the item done; a
 * review may give no thumb (null), an annotation made through the API always gives one.
 * The comment comes redacted (redactedComment, before the transaction).
 */
export async function createAnnotationIn(
  tx: Executor,
  scope: AnnotationScope,
  traceId: string,
  input: Omit<CreateAnnotationBody, 'isThumbsUp'> & { isThumbsUp: boolean | null },
  now: Date,
  scoresField = 'body.scores',
): Promise<AnnotationView> {
  checkAnchor(input);
  const checked = await checkScores(tx, scope.projectId, input.scores ?? [], scoresField);
  // A personal key speaks for its user; other keys may name the person in `email`.
  const userEmail = scope.userId ? await emailOfUser(tx, scope.userId) : null;
  const row = await store.insertAnnotation(tx, {
    id: newId('ann'),
    projectId: scope.projectId,
    traceId,
    comment: input.comment,
    isThumbsUp: input.isThumbsUp,
    email: userEmail ?? input.email ?? null,
    userId: scope.userId,
    anchorKind: input.anchorKind ?? null,
    anchorId: input.anchorId ?? null,
    anchorPath: input.anchorPath ?? null,
    createdAt: now,
    updatedAt: now,
  });
  await scoreStore.insertScores(
    tx,
    checked.map((c) => ({ id: newId('sc'), projectId: scope.projectId, annotationId: row.id, traceId, configId: c.config.id, numberValue: c.numberValue, textValue: c.textValue, createdAt: now })),
  );
  const scores = checked.map((c) => presentScore(c.config, c.numberValue, c.textValue));
  const created = presentAnnotation(row, scores);
  const project = { organizationId: scope.organizationId, projectId: scope.projectId };
  await emitEvent(tx, { ...project, type: 'annotation.created', data: { annotation: created } }, now);
  await emitEvents(tx, scores.map((score) => ({ ...project, type: 'score.created', data: { score: { ...score, traceId, annotationId: row.id, userId: scope.userId } } })), now);
  return created;
}

/** Changes the comment and flag; the author stays the one who wrote it (an e-mail is set only where no user is recorded). */
export async function updateAnnotation(ctx: AnnotationsContext, scope: AnnotationScope, id: string, input: UpdateAnnotationBody): Promise<AnnotationView> {
  const now = ctx.clock.now();
  const comment = await redactedComment(ctx, scope.projectId, input.comment);
  return ctx.db.orm.transaction(async (tx) => {
    const current = await store.findAnnotation(tx, scope.projectId, id);
    if (!current) throw annotationNotFound(id);
    const row = await store.updateAnnotation(tx, scope.projectId, id, {
      comment,
      isThumbsUp: input.isThumbsUp,
      email: current.userId ? current.email : (input.email ?? current.email),
      updatedAt: now,
    });
    if (!row) throw annotationNotFound(id);
    const [updated] = await withScores(tx, scope.projectId, [row]);
    await emitEvent(tx, { organizationId: scope.organizationId, projectId: scope.projectId, type: 'annotation.updated', data: { annotation: updated } }, now);
    return updated;
  });
}

export async function deleteAnnotation(ctx: AnnotationsContext, scope: AnnotationScope, id: string): Promise<{ status: string; message: string }> {
  const now = ctx.clock.now();
  return ctx.db.orm.transaction(async (tx) => {
    const row = await store.deleteAnnotation(tx, scope.projectId, id);
    if (!row) throw annotationNotFound(id);
    await emitEvent(
      tx,
      { organizationId: scope.organizationId, projectId: scope.projectId, type: 'annotation.deleted', data: { annotation: { id: row.id, traceId: row.traceId } } },
      now,
    );
    return { status: 'ok', message: `annotation ${id} deleted` };
  });
}

/** An anchor names its kind; a span anchor names the span; anchor details without a kind are ambiguous. */
function checkAnchor(input: Pick<CreateAnnotationBody, 'anchorKind' | 'anchorId' | 'anchorPath'>): void {
  if (!input.anchorKind) {
    if (input.anchorId !== undefined || input.anchorPath !== undefined) {
      throw badRequest('anchor_kind_required', 'body.anchorKind: anchorId and anchorPath need an anchorKind (span, field, attribute or message)', 'body.anchorKind');
    }
    return;
  }
  if (input.anchorKind === 'span' && input.anchorId === undefined) {
    throw badRequest('anchor_id_required', 'body.anchorId: a span anchor needs the span id', 'body.anchorId');
  }
  if (input.anchorId === undefined && input.anchorPath === undefined) {
    throw badRequest('anchor_target_required', `body.anchorPath: a ${input.anchorKind} anchor needs anchorPath or anchorId`, 'body.anchorPath');
  }
}
