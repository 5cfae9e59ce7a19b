export { buildTopics, buildTopicsModule, topicsModule, TOPICS_POLL_MS, topicsTraceExtension, type Topics, type TopicsPorts } from './module.ts';
export type { TopicsContext } from './context.ts';
export { adjustedRandIndex, clusterEmbeddings, nearestCentroid, seededRandom } from './clustering.ts';
export { inTopicsCondition, topicOfTracesRelation } from './store.ts';
