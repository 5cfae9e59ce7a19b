export { buildModelProviders, modelProvidersModule, sealedProviderKeys, type ModelGateway, type ModelProviders } from './module.ts';
export type { OpenedProvider, ModelProviderPorts, ModelCallLimits } from './context.ts';
