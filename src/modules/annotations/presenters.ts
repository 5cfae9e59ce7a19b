import type { z } from 'zod';
import type { annotationSchema } from './schemas.ts';
import type { AnnotationRow } from './store.ts';
import type { ScoreView } from './scores.schema.ts';

/** An annotation as the API answers it (`annotationSchema`): a field the schema gains and this forgets fails to compile. */
export type AnnotationView = z.output<typeof annotationSchema>;

/** `scores` appears only when the annotation carries some: an annotation without scores answers as it always did. */
export function presentAnnotation(row: AnnotationRow, scores: ScoreView[] = []): AnnotationView {
  return {
    id: row.id,
    projectId: row.projectId,
    traceId: row.traceId,
    comment: row.comment,
    isThumbsUp: row.isThumbsUp,
    email: row.email,
    userId: row.userId,
    anchorKind: row.anchorKind,
    anchorId: row.anchorId,
    anchorPath: row.anchorPath,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...(scores.length > 0 ? { scores } : {}),
  };
}
