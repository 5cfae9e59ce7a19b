import { newId } from '../../platform/ids.ts';
import { clusterEmbeddings } from './clustering.ts';
import type { ProjectScope, TopicsContext } from './context.ts';
import { distinctiveWords } from './keywords.ts';
import * as store from './store.ts';

/** The most traces one build clusters (the newest embedded ones); older ones keep their topic. */
export const MAX_BUILD_TRACES = 100_000;
/** Fewer embedded traces than this: no topics yet. */
export const MIN_BUILD_TRACES = 10;
/** A new topic keeps an old one's id and name when their centroids are at least this similar. */
const SAME_TOPIC_SIMILARITY = 0.8;
/** Inputs per topic read to find its keywords and name it. */
const SAMPLES_PER_TOPIC = 20;
/** How long a process holds a build before another may take it over. */
const BUILD_LEASE_MS = 10 * 60_000;

/** Whether a project's topics are due: never built, asked for, grown twofold since, or older than the schedule. */
export function buildDue(settings: store.SettingsRow, embedded: number, now: number): boolean {
  if (embedded < MIN_BUILD_TRACES) return false;
  if (settings.builtAt === null) return true;
  if (settings.buildRequestedAt !== null) return true;
  if ((settings.builtTraces ?? 0) < MAX_BUILD_TRACES && embedded >= 2 * (settings.builtTraces ?? 0)) return true;
  return now - settings.builtAt >= settings.reclusterHours * 3_600_000;
}

/**
 * Finds the project's topics again from the newest embedded traces: cluster, keep the ids of
 * topics that stayed, find each topic's keywords, name it (with the naming model when set),
 * and move every clustered trace to its topic. Another process building the same project at
 * the same time: this one does nothing.
 */
export async function buildTopics(ctx: TopicsContext, scope: ProjectScope, settings: Pick<store.SettingsRow, 'namingModel'>): Promise<{ built: boolean; topics: number; traces: number }> {
  const now = () => ctx.clock.now().getTime();
  if (!(await store.claimBuild(ctx.db.orm, scope.projectId, now(), BUILD_LEASE_MS))) return { built: false, topics: 0, traces: 0 };
  try {
    const { traceIds, vectors } = await store.loadEmbeddings(ctx.db.orm, scope.projectId, MAX_BUILD_TRACES);
    // Vectors of another length (the embeddings model changed) than the newest: left to the next model's build.
    const d = vectors[0]?.length ?? 0;
    const keep = vectors.map((v, i) => (v.length === d ? i : -1)).filter((i) => i >= 0);
    const data = new Float32Array(keep.length * d);
    keep.forEach((i, row) => data.set(vectors[i], row * d));
    const ids = keep.map((i) => traceIds[i]);
    const clustering = await clusterEmbeddings({ n: ids.length, d, data }, { seed: 1 });

    // Keep the ids (and names) of the old topics nearest the new ones, each used once.
    const old = (await store.listTopics(ctx.db.orm, scope.projectId)).filter((t) => t.centroid.length === d);
    const pairs: { c: number; o: number; s: number }[] = [];
    for (let c = 0; c < clustering.k; c++) {
      for (let o = 0; o < old.length; o++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += clustering.centroids[c * d + j] * old[o].centroid[j];
        if (s >= SAME_TOPIC_SIMILARITY) pairs.push({ c, o, s });
      }
    }
    pairs.sort((a, b) => b.s - a.s);
    const reused = new Map<number, (typeof old)[number]>();
    const usedOld = new Set<number>();
    for (const p of pairs) {
      if (reused.has(p.c) || usedOld.has(p.o)) continue;
      reused.set(p.c, old[p.o]);
      usedOld.add(p.o);
    }

    // The inputs nearest each centroid: what the topic is about.
    const nearest: number[][] = Array.from({ length: clustering.k }, () => []);
    const order = [...clustering.assignment.keys()].sort((a, b) => clustering.similarity[b] - clustering.similarity[a]);
    for (const i of order) {
      const list = nearest[clustering.assignment[i]];
      if (list.length < SAMPLES_PER_TOPIC) list.push(i);
    }
    const sampleIds = nearest.flat().map((i) => ids[i]);
    const inputs = new Map((await ctx.traceInputs(scope.projectId, { traceIds: sampleIds }, sampleIds.length)).map((t) => [t.trace_id, t.input ?? '']));
    const samples = nearest.map((list) => list.map((i) => inputs.get(ids[i]) ?? '').filter(Boolean));
    const keywords = distinctiveWords(samples, 6);

    const builtAt = now();
    const topics: Omit<store.TopicRow, 'projectId'>[] = [];
    for (let c = 0; c < clustering.k; c++) {
      const before = reused.get(c);
      const name = before?.name ?? (await nameTopic(ctx, scope, settings.namingModel, samples[c], keywords[c]));
      topics.push({
        topicId: before?.topicId ?? newId('topic'),
        name,
        keywords: keywords[c],
        centroid: clustering.centroids.slice(c * d, c * d + d),
        size: clustering.sizes[c],
        builtAt,
      });
    }
    const topicIds = Array.from(clustering.assignment, (c) => topics[c].topicId);
    await ctx.db.orm.transaction((tx) => store.replaceTopics(tx, scope.projectId, { topics, traceIds: ids, topicIds, similarities: clustering.similarity, builtAt }));
    return { built: true, topics: topics.length, traces: ids.length };
  } catch (err) {
    await store.recordError(ctx.db.orm, scope.projectId, `finding topics failed: ${err instanceof Error ? err.message : String(err)}`, now(), true);
    throw err;
  }
}

/** A topic's name: the naming model's few words for its inputs, or its keywords without one (or when it fails). */
async function nameTopic(ctx: TopicsContext, scope: ProjectScope, model: string | null, samples: string[], keywords: string[]): Promise<string> {
  const fallback = keywords.slice(0, 3).join(', ') || 'Other';
  if (!model || samples.length === 0) return fallback;
  const prompt = [
    'These are messages users sent to an application. In at most five words, name the subject they share.',
    'Answer with the name only: no quotes, no full stop.',
    '',
    ...samples.slice(0, 10).map((s, i) => `${i + 1}. ${s.replace(/\s+/g, ' ').slice(0, 300)}`),
    '',
    `Frequent words: ${keywords.join(', ')}`,
  ].join('\n');
  try {
    const answer = (await ctx.complete(scope, model, prompt)).trim().replace(/^["'“]+|["'”]+$/g, '').replace(/\.$/, '').trim().slice(0, 80);
    return answer || fallback;
  } catch {
    return fallback;
  }
}
