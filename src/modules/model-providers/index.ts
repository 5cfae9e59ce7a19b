export { ModelProviderService, type OpenedProvider, type ModelProviderDeps } from './service.ts';
export { modelProviderRoutes } from './routes.ts';
