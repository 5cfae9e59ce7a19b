export { buildThreads, threadsModule, threads, type Threads, type ThreadsPorts } from './module.ts';
export type { ThreadsContext } from './context.ts';
export { threadData, conversationText } from './conversation.ts';
export { MAX_TURNS as THREAD_MAX_TURNS } from './use-cases/evaluate-thread.ts';
export { threadResultBuckets } from './use-cases/score-series.ts';
export { threadJudgeResults, threadJudgesWithResults, threadResultWindows, threadResultsExist } from './use-cases/judge-results.ts';
