import type { Executor } from '../../db/index.ts';
import { notFound } from '../../platform/errors.ts';
import type { AnchorFilter, AnnotationScope, AnnotationsContext } from './context.ts';
import { presentAnnotation, type AnnotationView } from './presenters.ts';
import { presentScore } from './score-configs.ts';
import * as scoreStore from './score-store.ts';
import type { ScoreView } from './scores.schema.ts';
import * as store from './store.ts';

/** The project's annotations, newest first. */
export async function listAnnotations(ctx: AnnotationsContext, scope: AnnotationScope, anchor: AnchorFilter = 'all'): Promise<AnnotationView[]> {
  const rows = await store.listAnnotations(ctx.db.orm, scope.projectId, { wholeTraceOnly: anchor === 'trace' });
  return withScores(ctx.db.orm, scope.projectId, rows);
}

/**
 * A trace's annotations, oldest first. The trace need not exist (yet): annotations made
 * before its spans arrived are kept and show once it does.
 */
export async function annotationsOfTrace(ctx: AnnotationsContext, scope: Pick<AnnotationScope, 'projectId'>, traceId: string, anchor: AnchorFilter = 'all'): Promise<AnnotationView[]> {
  const rows = await store.listAnnotations(ctx.db.orm, scope.projectId, { traceId, wholeTraceOnly: anchor === 'trace' });
  return withScores(ctx.db.orm, scope.projectId, rows);
}

export async function getAnnotation(ctx: AnnotationsContext, scope: AnnotationScope, id: string): Promise<AnnotationView> {
  const row = await store.findAnnotation(ctx.db.orm, scope.projectId, id);
  if (!row) throw annotationNotFound(id);
  return (await withScores(ctx.db.orm, scope.projectId, [row]))[0];
}

/** Annotations as answered, each with its scores (read in one query). */
export async function withScores(db: Executor, projectId: string, rows: store.AnnotationRow[]): Promise<AnnotationView[]> {
  const found = await scoreStore.scoresOfAnnotations(db, projectId, rows.map((r) => r.id));
  const byAnnotation = new Map<string, ScoreView[]>();
  for (const { score, config } of found) {
    const list = byAnnotation.get(score.annotationId) ?? [];
    list.push(presentScore(config, score.numberValue, score.textValue));
    byAnnotation.set(score.annotationId, list);
  }
  return rows.map((r) => presentAnnotation(r, byAnnotation.get(r.id)));
}

export function annotationNotFound(id: string) {
  return notFound('annotation_not_found', `no annotation ${id} in this project`);
}
