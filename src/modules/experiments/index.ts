export { experimentRoutes, type ExperimentRoutesOptions } from './routes.ts';
export type { ExperimentsContext } from './context.ts';
