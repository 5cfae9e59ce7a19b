export { mcpRoutes, toolPermissions, type McpRouteOptions } from './routes.ts';
export { runStdioBridge } from './stdio-bridge.ts';
