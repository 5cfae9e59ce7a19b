export { buildReview, reviewModule, type ReviewPorts } from './module.ts';
export { type ReviewDeps, CLAIM_MS } from './context.ts';
export { addItems, addMonitorFailure } from './add-items.ts';
export { createQueue, getQueue, queueExists } from './queues.ts';
