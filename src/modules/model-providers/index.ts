export { buildModelProviders, registerModelProviders, sealedProviderKeys, type ModelProviders } from './module.ts';
export type { OpenedProvider, ModelProviderPorts } from './context.ts';
