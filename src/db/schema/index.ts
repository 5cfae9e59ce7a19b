export * from './foundation.ts';
