export * from './foundation.ts';
export * from './events.ts';
