export { registerThreads, threads, type Threads } from './module.ts';
export type { ThreadsContext } from './context.ts';
export { threadData, conversationText } from './conversation.ts';
