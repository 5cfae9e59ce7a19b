import { z } from 'zod';
import { scoreInput, scoreSchema } from './scores.schema.ts';

export const ANCHOR_KINDS = ['span', 'field', 'attribute', 'message'] as const;
export type AnchorKind = (typeof ANCHOR_KINDS)[number];

/** OTLP's 32-hex ids and the other ids SDKs send (uuids, prefixed ids): 1..128 of [A-Za-z0-9_-:.]. */
export const TRACE_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

export const traceParams = z.object({
  id: z.string().regex(TRACE_ID_PATTERN, 'a trace id is 1..128 letters, digits or _ - : .').describe('trace id'),
});
export const annotationParams = z.object({ id: z.string().min(1).max(128).describe('annotation id') });

export const anchorQuery = z.object({
  anchor: z
    .enum(['trace', 'all'])
    .optional()
    .describe('trace: only comments about whole traces; all or omitted: every comment, including those on a span, field, attribute or message'),
});

const comment = z.string().max(20_000);
const email = z.email().max(320).nullish().describe("used when the key has no user; a personal key's user is recorded instead");

export const createAnnotationBody = z.strictObject({
  comment,
  isThumbsUp: z.boolean(),
  email,
  anchorKind: z.enum(ANCHOR_KINDS).optional().describe('what part of the trace the comment is about; omitted: the whole trace'),
  anchorId: z.string().min(1).max(256).optional().describe('the span id (span anchors need it)'),
  anchorPath: z.string().min(1).max(1000).optional().describe('where inside the span or trace, e.g. output.value or attributes.gen_ai.request.model'),
  scores: z.array(scoreInput).max(50).optional().describe("scores following the project's score configs (GET /api/score-configs); a value outside a config's range or categories is a 400"),
});
export type CreateAnnotationBody = z.infer<typeof createAnnotationBody>;

export const updateAnnotationBody = z.strictObject({ comment, isThumbsUp: z.boolean(), email });
export type UpdateAnnotationBody = z.infer<typeof updateAnnotationBody>;

export const annotationSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    traceId: z.string(),
    comment: z.string(),
    isThumbsUp: z.boolean().nullable().describe('null: no thumb (a review completed without one)'),
    email: z.string().nullable(),
    userId: z.string().nullable(),
    anchorKind: z.enum(ANCHOR_KINDS).nullable(),
    anchorId: z.string().nullable(),
    anchorPath: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    scores: z.array(scoreSchema).optional().describe('present only on annotations that carry scores'),
  })
  .meta({ id: 'Annotation' });


/** A reviewer's scores of a whole thread (a review queue's thread item, completed). */
export const threadReviewSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    threadId: z.string(),
    comment: z.string(),
    email: z.string().nullable(),
    userId: z.string().nullable(),
    traceIds: z.array(z.string()).describe('The turns the reviewer saw, oldest first'),
    scores: z.array(scoreSchema),
    createdAt: z.string(),
  })
  .meta({ id: 'ThreadReview' });
export type ThreadReviewView = z.output<typeof threadReviewSchema>;
