export { buildApiKeys, apiKeysModule, type ApiKeys } from './module.ts';
export { liveKeyCount } from './store.ts';
export type { IssuedKey } from './issue-keys.ts';
export type { Directory } from './types.ts';
export type { ApiKeyView } from './presenters.ts';
