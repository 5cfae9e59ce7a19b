export { ApiKeyService, type Directory } from './service.ts';
export type { ApiKeyView } from './presenters.ts';
export { apiKeyRoutes } from './routes.ts';
