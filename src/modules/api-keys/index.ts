export { ApiKeyService, type ApiKeyView, type Directory } from './service.ts';
export { apiKeyRoutes } from './routes.ts';
