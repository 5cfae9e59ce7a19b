import type { z } from 'zod';
import type { annotationSchema } from './schemas.ts';
import type { AnnotationRow } from './store.ts';

/** An annotation as the API answers it (`annotationSchema`): a field the schema gains and this forgets fails to compile. */
export type AnnotationView = z.output<typeof annotationSchema>;

export function presentAnnotation(row: AnnotationRow): AnnotationView {
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
  };
}
