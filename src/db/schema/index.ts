export * from './foundation.ts';
export * from './events.ts';
export * from './prompts-annotations-cache.ts';
export * from './webhooks.ts';
export * from './evaluations.ts';
export * from './sessions.ts';
export * from './installation-keys.ts';
export * from './experiments.ts';
