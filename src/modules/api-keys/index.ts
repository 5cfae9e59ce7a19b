export { ApiKeyService } from './service.ts';
export type { Directory } from './types.ts';
export type { ApiKeyView } from './presenters.ts';
export { apiKeyRoutes } from './routes.ts';
