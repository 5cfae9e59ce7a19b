export { mcpModule, runStdioBridge } from './module.ts';
