export { registerMcp, runStdioBridge, type McpPorts } from './module.ts';
