// One file per owner: each holds the tables of the module (or platform piece) of its name,
// and only that owner's store files touch them (test/foundation/table-owners.test.ts).
export * from './organizations.ts';
export * from './api-keys.ts';
export * from './events.ts';
export * from './prompts.ts';
export * from './annotations.ts';
export * from './agent-cache.ts';
export * from './webhooks.ts';
export * from './evaluators.ts';
export * from './model-providers.ts';
export * from './installation-keys.ts';
export * from './traces.ts';
export * from './monitors.ts';
export * from './jobs.ts';
export * from './datasets.ts';
export * from './experiments.ts';
export * from './review.ts';
export * from './privacy.ts';
export * from './alerts.ts';
export * from './simulations.ts';
export * from './judge-alignment.ts';
export * from './dashboards.ts';
export * from './threads.ts';
export * from './topics.ts';
