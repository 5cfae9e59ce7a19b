import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import { annotations } from '../../db/schema/annotations.ts';
import { QueryBuilder } from 'drizzle-orm/pg-core';

export type AnnotationRow = typeof annotations.$inferSelect;

export async function insertAnnotation(db: Executor, row: typeof annotations.$inferInsert): Promise<AnnotationRow> {
  const [created] = await db.insert(annotations).values(row).returning();
  return created;
}

export async function findAnnotation(db: Executor, projectId: string, id: string): Promise<AnnotationRow | null> {
  const [row] = await db
    .select()
    .from(annotations)
    .where(and(eq(annotations.projectId, projectId), eq(annotations.id, id)));
  return row ?? null;
}

/** A trace's comments read oldest first (a conversation); the project's list newest first. */
export async function listAnnotations(
  db: Executor,
  projectId: string,
  filter: { traceId?: string; wholeTraceOnly: boolean },
): Promise<AnnotationRow[]> {
  const conditions = [eq(annotations.projectId, projectId)];
  if (filter.traceId !== undefined) conditions.push(eq(annotations.traceId, filter.traceId));
  if (filter.wholeTraceOnly) conditions.push(isNull(annotations.anchorKind));
  const order = filter.traceId !== undefined ? [asc(annotations.createdAt), asc(annotations.id)] : [desc(annotations.createdAt), desc(annotations.id)];
  return db
    .select()
    .from(annotations)
    .where(and(...conditions))
    .orderBy(...order);
}

export async function updateAnnotation(
  db: Executor,
  projectId: string,
  id: string,
  patch: Pick<AnnotationRow, 'comment' | 'isThumbsUp' | 'email' | 'updatedAt'>,
): Promise<AnnotationRow | null> {
  const [row] = await db
    .update(annotations)
    .set(patch)
    .where(and(eq(annotations.projectId, projectId), eq(annotations.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteAnnotation(db: Executor, projectId: string, id: string): Promise<AnnotationRow | null> {
  const [row] = await db
    .delete(annotations)
    .where(and(eq(annotations.projectId, projectId), eq(annotations.id, id)))
    .returning();
  return row ?? null;
}

/** Analytics: a project's thumbs as a typed relation (one row per annotation), to join with traces. */
export function thumbsRelation(projectId: string) {
  return new QueryBuilder()
    .select({ traceId: annotations.traceId, isThumbsUp: annotations.isThumbsUp })
    .from(annotations)
    .where(eq(annotations.projectId, projectId))
    .as('thumbs');
}
