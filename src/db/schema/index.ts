export * from './foundation.ts';
export * from './events.ts';
export * from './prompts-annotations-cache.ts';
export * from './evaluations.ts';
