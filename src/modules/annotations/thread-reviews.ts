import type { ThreadsPickedRelation, ThreadValuesRelation } from '../traces/index.ts';
import type { Database, Executor } from '../../db/index.ts';
import { badRequest } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { findScoreConfigs } from './score-store.ts';
import { userEmail as emailOfUser } from '../organizations/index.ts';
import { checkScores, presentScore } from './score-configs.ts';
import { summarizeScores } from './score-summaries.ts';
import type { ScoreInput, ScoreSummary, ScoreView } from './scores.schema.ts';
import type { ThreadReviewView } from './schemas.ts';
import type { AnnotationContext } from './context.ts';
import * as store from './thread-review-store.ts';

/**
 * Reviews of whole threads: a reviewer's scores of a conversation (the score configs of the
 * queue it came from), stored against the thread with the turns the reviewer saw. The review
 * module writes one when a thread item is completed, in the transaction that marks it done.
 */
export async function createThreadReviewIn(
  tx: Executor,
  ctx: AnnotationContext,
  threadId: string,
  input: { comment: string; scores: ScoreInput[]; traceIds: string[] },
  now: Date,
  scoresField = 'body.scores',
): Promise<ThreadReviewView> {
  const checked = await checkScores(tx, ctx.projectId, input.scores, scoresField);
  const email = ctx.userId ? await emailOfUser(tx, ctx.userId) : null;
  const row = await store.insertThreadReview(tx, {
    id: newId('trev'),
    projectId: ctx.projectId,
    threadId,
    comment: input.comment,
    userId: ctx.userId,
    email,
    traceIds: input.traceIds,
    createdAt: now,
  });
  await store.insertThreadScores(
    tx,
    checked.map((c) => ({ id: newId('tsc'), projectId: ctx.projectId, reviewId: row.id, threadId, configId: c.config.id, numberValue: c.numberValue, textValue: c.textValue, createdAt: now })),
  );
  return present(row, checked.map((c) => presentScore(c.config, c.numberValue, c.textValue)));
}

/** One review, or null. */
export async function threadReview(db: Database, projectId: string, id: string): Promise<ThreadReviewView | null> {
  const row = await store.findThreadReview(db.orm, projectId, id);
  return row ? (await withScores(db.orm, projectId, [row]))[0] : null;
}

/** A thread's reviews, oldest first, each with its scores. */
export async function threadReviews(db: Database, projectId: string, threadId: string): Promise<ThreadReviewView[]> {
  return withScores(db.orm, projectId, await store.listThreadReviews(db.orm, projectId, threadId));
}

/** Per thread: its review scores summed up per config (what the threads list shows), in one query. */
export async function threadScoreSummaries(db: Database, projectId: string, threadIds: readonly string[]): Promise<Map<string, ScoreSummary[]>> {
  return summarizeScores(await store.scoresOfThreads(db.orm, projectId, threadIds));
}

/**
 * The threads list's review score filter: the threads people scored with
 * the config within min..max (numeric) or equal to value (boolean, categorical). A config that
 * is missing, or a bound or value its kind cannot have, is a 400 naming the field.
 */
export async function scoredThreads(db: Database, projectId: string, f: { configId: string; min?: number; max?: number; value?: string | boolean }, field: string): Promise<ThreadsPickedRelation> {
  const [config] = await findScoreConfigs(db.orm, projectId, [f.configId]);
  if (!config) throw badRequest('validation_error', `${field}.configId: no score config ${JSON.stringify(f.configId)} in this project (GET /api/score-configs)`, `${field}.configId`);
  if (config.kind !== 'numeric' && (f.min !== undefined || f.max !== undefined)) {
    throw badRequest('validation_error', `${field}.${f.min !== undefined ? 'min' : 'max'}: ${JSON.stringify(config.name)} is ${config.kind}; give value instead`, `${field}.${f.min !== undefined ? 'min' : 'max'}`);
  }
  if (f.min !== undefined && f.max !== undefined && f.max < f.min) throw badRequest('validation_error', `${field}.max: below min`, `${field}.max`);
  if (f.value !== undefined) {
    const value = String(f.value);
    if (config.kind === 'numeric') throw badRequest('validation_error', `${field}.value: ${JSON.stringify(config.name)} is numeric; give min and max instead`, `${field}.value`);
    if (config.kind === 'boolean' && value !== 'true' && value !== 'false') throw badRequest('validation_error', `${field}.value: true or false is expected`, `${field}.value`);
    if (config.kind === 'categorical' && !config.categories.includes(value)) {
      throw badRequest('validation_error', `${field}.value: one of ${config.categories.map((c) => JSON.stringify(c)).join(', ')} is expected`, `${field}.value`);
    }
  }
  return store.scoredThreadsRelation(projectId, { configId: config.id, min: f.min, max: f.max, value: f.value === undefined ? undefined : String(f.value) });
}

/** The threads list's sortByScore: a relation (threadId, value) of a numeric or boolean config's mean per thread; a missing or categorical config is a 400 naming the field. */
export async function threadScoreSort(db: Database, projectId: string, configId: string, field: string): Promise<ThreadValuesRelation> {
  const [config] = await findScoreConfigs(db.orm, projectId, [configId]);
  if (!config) throw badRequest('validation_error', `${field}: no score config ${JSON.stringify(configId)} in this project (GET /api/score-configs)`, field);
  if (config.kind === 'categorical') throw badRequest('validation_error', `${field}: ${JSON.stringify(config.name)} is categorical; sort by a numeric or boolean score`, field);
  return store.threadScoreMeansRelation(projectId, config.id);
}

/** Analytics: people's thread scores per config and bucket of when they were given, of the threads `threads` lists when given. */
export async function threadScoreBuckets(db: Executor, projectId: string, q: Parameters<typeof store.threadScoreBuckets>[2]) {
  return (await store.threadScoreBuckets(db, projectId, q)).map((r) => ({ ...r, b: Number(r.b), n: Number(r.n), total: r.total === null ? null : Number(r.total) }));
}

/** For judge alignment: the latest value of a config people gave each thread (booleans as 1/0, categories by name). */
export async function latestThreadScores(db: Database, projectId: string, config: { id: string; kind: 'numeric' | 'boolean' | 'categorical' }): Promise<{ threadId: string; value: number | string }[]> {
  const found = await store.latestThreadScoresOfConfig(db.orm, projectId, config.id);
  return found.map((s) => ({ threadId: s.threadId, value: config.kind === 'categorical' ? (s.textValue ?? '') : Number(s.numberValue ?? 0) }));
}

async function withScores(db: Executor, projectId: string, rows: store.ThreadReviewRow[]): Promise<ThreadReviewView[]> {
  const found = await store.scoresOfThreadReviews(
    db,
    projectId,
    rows.map((r) => r.id),
  );
  return rows.map((r) =>
    present(
      r,
      found.filter((f) => f.score.reviewId === r.id).map(({ score, config }) => presentScore(config, score.numberValue, score.textValue)),
    ),
  );
}

function present(r: store.ThreadReviewRow, scores: ScoreView[]): ThreadReviewView {
  return { id: r.id, projectId: r.projectId, threadId: r.threadId, comment: r.comment, email: r.email, userId: r.userId, traceIds: r.traceIds, scores, createdAt: r.createdAt.toISOString() };
}
