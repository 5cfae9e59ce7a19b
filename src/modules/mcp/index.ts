export { registerMcp, type McpPorts } from './module.ts';
export { runStdioBridge } from './stdio-bridge.ts';
