import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { badRequest, notFound } from '../../platform/errors.ts';
import { emitEvent, emitEvents } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { presentAnnotation, type AnnotationView } from './presenters.ts';
import type { CreateAnnotationBody, UpdateAnnotationBody } from './schemas.ts';
import * as store from './store.ts';
import { userEmail as emailOfUser } from '../organizations/index.ts';
import { checkScores, presentScore } from './score-configs.ts';
import type { ScoreView } from './scores.schema.ts';
import * as scoreStore from './score-store.ts';

/** Who is annotating, and in which project. */
export interface AnnotationContext {
  projectId: string;
  organizationId: string;
  /** The user of a personal key: recorded as the author. Null for project and service keys. */
  userId: string | null;
}

export type AnchorFilter = 'trace' | 'all';

/** What annotations use of a project's privacy at ingest (the privacy module). */
export interface CommentRedactor {
  readonly active: boolean;
  text(text: string, field: string): string;
  /** Ends one comment: what was found is counted in /metrics. */
  take(): unknown;
}

export class AnnotationService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly redactor?: (projectId: string, path: string) => Promise<CommentRedactor>,
  ) {}

  /**
   * A comment as the project's privacy settings store it. Called before the transaction that
   * writes it (the settings are read outside it: PGlite has one connection).
   */
  async redactedComment<T extends string | null | undefined>(projectId: string, comment: T): Promise<T> {
    if (typeof comment !== 'string' || !this.redactor) return comment;
    const r = await this.redactor(projectId, 'annotations');
    if (!r.active) return comment;
    const out = r.text(comment, 'comment');
    r.take();
    return out as T;
  }

  /** The project's annotations, newest first. */
  async list(ctx: AnnotationContext, anchor: AnchorFilter = 'all'): Promise<AnnotationView[]> {
    const rows = await store.listAnnotations(this.db.orm, ctx.projectId, { wholeTraceOnly: anchor === 'trace' });
    return this.present(this.db.orm, ctx.projectId, rows);
  }

  /**
   * A trace's annotations, oldest first. The trace need not exist (yet): annotations made
   * before its spans arrived are kept and show once it does. The traces module reads them here.
   */
  async forTrace(projectId: string, traceId: string, anchor: AnchorFilter = 'all'): Promise<AnnotationView[]> {
    const rows = await store.listAnnotations(this.db.orm, projectId, { traceId, wholeTraceOnly: anchor === 'trace' });
    return this.present(this.db.orm, projectId, rows);
  }

  async create(ctx: AnnotationContext, traceId: string, input: CreateAnnotationBody): Promise<AnnotationView> {
    checkAnchor(input);
    const now = this.clock.now();
    const redacted = { ...input, comment: await this.redactedComment(ctx.projectId, input.comment) };
    return this.db.orm.transaction((tx) => this.createIn(tx, ctx, traceId, redacted, now));
  }

  /**
   * Writes an annotation (with its scores, checked against their configs) in the caller's
   * transaction, and its events: annotation.created, and score.created per score. The review
   * module completes a queue item with it, in the transaction that marks the item done; a
   * review may give no thumb (null), an annotation made through the API always gives one.
   * The comment comes redacted (redactedComment, before the transaction).
   */
  async createIn(
    tx: Executor,
    ctx: AnnotationContext,
    traceId: string,
    input: Omit<CreateAnnotationBody, 'isThumbsUp'> & { isThumbsUp: boolean | null },
    now: Date,
    scoresField = 'body.scores',
  ): Promise<AnnotationView> {
    checkAnchor(input);
    const checked = await checkScores(tx, ctx.projectId, input.scores ?? [], scoresField);
    // A personal key speaks for its user; other keys may name the person in `email`.
    const userEmail = ctx.userId ? await emailOfUser(tx, ctx.userId) : null;
    const row = await store.insertAnnotation(tx, {
      id: newId('ann'),
      projectId: ctx.projectId,
      traceId,
      comment: input.comment,
      isThumbsUp: input.isThumbsUp,
      email: userEmail ?? input.email ?? null,
      userId: ctx.userId,
      anchorKind: input.anchorKind ?? null,
      anchorId: input.anchorId ?? null,
      anchorPath: input.anchorPath ?? null,
      createdAt: now,
      updatedAt: now,
    });
    await scoreStore.insertScores(
      tx,
      checked.map((c) => ({ id: newId('sc'), projectId: ctx.projectId, annotationId: row.id, traceId, configId: c.config.id, numberValue: c.numberValue, textValue: c.textValue, createdAt: now })),
    );
    const scores = checked.map((c) => presentScore(c.config, c.numberValue, c.textValue));
    const created = presentAnnotation(row, scores);
    const scope = { organizationId: ctx.organizationId, projectId: ctx.projectId };
    await emitEvent(tx, { ...scope, type: 'annotation.created', data: { annotation: created } }, now);
    await emitEvents(tx, scores.map((score) => ({ ...scope, type: 'score.created', data: { score: { ...score, traceId, annotationId: row.id, userId: ctx.userId } } })), now);
    return created;
  }

  /** Annotations as answered, each with its scores (read in one query). */
  private async present(db: Executor, projectId: string, rows: store.AnnotationRow[]): Promise<AnnotationView[]> {
    const found = await scoreStore.scoresOfAnnotations(db, projectId, rows.map((r) => r.id));
    const byAnnotation = new Map<string, ScoreView[]>();
    for (const { score, config } of found) {
      const list = byAnnotation.get(score.annotationId) ?? [];
      list.push(presentScore(config, score.numberValue, score.textValue));
      byAnnotation.set(score.annotationId, list);
    }
    return rows.map((r) => presentAnnotation(r, byAnnotation.get(r.id)));
  }

  async get(ctx: AnnotationContext, id: string): Promise<AnnotationView> {
    const row = await store.findAnnotation(this.db.orm, ctx.projectId, id);
    if (!row) throw annotationNotFound(id);
    return (await this.present(this.db.orm, ctx.projectId, [row]))[0];
  }

  /** Changes the comment and flag; the author stays the one who wrote it (an e-mail is set only where no user is recorded). */
  async update(ctx: AnnotationContext, id: string, input: UpdateAnnotationBody): Promise<AnnotationView> {
    const now = this.clock.now();
    const comment = await this.redactedComment(ctx.projectId, input.comment);
    return this.db.orm.transaction(async (tx) => {
      const current = await store.findAnnotation(tx, ctx.projectId, id);
      if (!current) throw annotationNotFound(id);
      const row = await store.updateAnnotation(tx, ctx.projectId, id, {
        comment,
        isThumbsUp: input.isThumbsUp,
        email: current.userId ? current.email : (input.email ?? current.email),
        updatedAt: now,
      });
      if (!row) throw annotationNotFound(id);
      const [updated] = await this.present(tx, ctx.projectId, [row]);
      await emitEvent(tx, { organizationId: ctx.organizationId, projectId: ctx.projectId, type: 'annotation.updated', data: { annotation: updated } }, now);
      return updated;
    });
  }

  async delete(ctx: AnnotationContext, id: string): Promise<{ status: string; message: string }> {
    const now = this.clock.now();
    return this.db.orm.transaction(async (tx) => {
      const row = await store.deleteAnnotation(tx, ctx.projectId, id);
      if (!row) throw annotationNotFound(id);
      await emitEvent(
        tx,
        { organizationId: ctx.organizationId, projectId: ctx.projectId, type: 'annotation.deleted', data: { annotation: { id: row.id, traceId: row.traceId } } },
        now,
      );
      return { status: 'ok', message: `annotation ${id} deleted` };
    });
  }
}

function annotationNotFound(id: string) {
  return notFound('annotation_not_found', `no annotation ${id} in this project`);
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
