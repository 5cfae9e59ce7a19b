import { nearestCentroid, seededRandom } from './clustering.ts';
import type { ProjectScope, TopicsContext } from './context.ts';
import * as store from './store.ts';

/** Traces embedded per call to the embeddings model. */
export const EMBED_BATCH = 64;
/** Calls per project per round: a backlog drains over rounds, never holding one round for long. */
const BATCHES_PER_ROUND = 8;
/** What of an input is embedded: the start says what the user asked. */
const MAX_INPUT_CHARS = 4_000;

/**
 * Dimensions a stored embedding keeps. Models answer 768-3,072; a random projection to 256
 * keeps cosine similarities within a few hundredths (Johnson-Lindenstrauss) and lets 100,000
 * traces cluster in about 100 MiB instead of 600 MiB or more, whichever model a project uses.
 */
export const STORED_DIMENSIONS = 256;
const projections = new Map<number, Float32Array>();

/** The fixed projection from `from` dimensions: random signs, seeded by the dimension count (the same at every start). */
function projection(from: number): Float32Array {
  let m = projections.get(from);
  if (!m) {
    const random = seededRandom(from);
    m = new Float32Array(from * STORED_DIMENSIONS);
    for (let i = 0; i < m.length; i++) m[i] = random() < 0.5 ? -1 : 1;
    projections.set(from, m);
  }
  return m;
}

/** An embedding as stored: projected to STORED_DIMENSIONS when longer, scaled to unit length, float32. */
export function unitVector(v: readonly number[]): Float32Array {
  let out: Float32Array;
  if (v.length > STORED_DIMENSIONS) {
    const m = projection(v.length);
    out = new Float32Array(STORED_DIMENSIONS);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (x === 0) continue;
      const row = i * STORED_DIMENSIONS;
      for (let j = 0; j < STORED_DIMENSIONS; j++) out[j] += x * m[row + j];
    }
  } else out = Float32Array.from(v);
  let s = 0;
  for (const x of out) s += x * x;
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < out.length; i++) out[i] *= inv;
  return out;
}

/**
 * Embeds the inputs of traces ingested since the project's watermark, in the order they came,
 * and puts each in the nearest topic; the watermark moves past each batch stored. Runs in the
 * background, never in ingest: a provider failing stops the round and is recorded for the
 * topics page; the watermark stays, and the traces wait for the next round.
 */
export async function embedNewTraces(ctx: TopicsContext, scope: ProjectScope, model: string, embeddedThrough: number | null): Promise<{ embedded: number }> {
  const topics = await store.listTopics(ctx.db.orm, scope.projectId);
  const d = topics[0]?.centroid.length ?? 0;
  const centroids = new Float32Array(topics.length * d);
  topics.forEach((t, i) => centroids.set(t.centroid, i * d));
  let embedded = 0;
  for (let round = 0; round < BATCHES_PER_ROUND; round++) {
    const batch = await ctx.traceInputs(scope.projectId, store.notEmbeddedSince(scope.projectId, embeddedThrough), EMBED_BATCH, 'ingested');
    if (batch.length === 0) break;
    const withText = batch.filter((t) => (t.input ?? '').trim() !== '');
    let vectors: number[][] = [];
    if (withText.length) {
      try {
        vectors = await ctx.embed(scope, model, withText.map((t) => t.input!.slice(0, MAX_INPUT_CHARS)), 'embeddingsModel');
      } catch (err) {
        await store.recordError(ctx.db.orm, scope.projectId, `embedding new traces failed: ${err instanceof Error ? err.message : String(err)}`, ctx.clock.now().getTime(), false);
        break;
      }
    }
    const byTrace = new Map(withText.map((t, i) => [t.trace_id, unitVector(vectors[i])]));
    const rows: store.EmbeddedTrace[] = batch.map((t) => {
      const embedding = byTrace.get(t.trace_id) ?? null;
      if (!embedding) return { traceId: t.trace_id, startedAt: t.started_at, embedding: null, topicId: null, similarity: null };
      // A model answering vectors of another length than the topics' (the model changed) waits for the next build.
      if (topics.length === 0 || embedding.length !== d) return { traceId: t.trace_id, startedAt: t.started_at, embedding, topicId: null, similarity: null };
      const nearest = nearestCentroid(centroids, topics.length, embedding);
      return { traceId: t.trace_id, startedAt: t.started_at, embedding, topicId: topics[nearest.index].topicId, similarity: nearest.similarity };
    });
    embeddedThrough = Math.max(embeddedThrough ?? 0, batch[batch.length - 1].inserted_at);
    await ctx.db.orm.transaction(async (tx) => {
      await store.insertEmbeddings(tx, scope.projectId, rows, ctx.clock.now().getTime());
      await store.advanceWatermark(tx, scope.projectId, embeddedThrough!);
    });
    embedded += rows.length;
    if (batch.length < EMBED_BATCH) break;
  }
  if (embedded > 0) await store.clearError(ctx.db.orm, scope.projectId);
  return { embedded };
}
