export { reviewQueueRoutes } from './routes.ts';
export { type ReviewDeps, CLAIM_MS } from './context.ts';
export { addMonitorFailure } from './add-items.ts';
export { queueExists } from './queues.ts';
