import type { FastifyInstance } from 'fastify';
import { mcpRoutes, type McpRouteOptions } from './routes.ts';
import type { StdioBridgeOptions } from './stdio-bridge.ts';

/** What the MCP module is given (app.ts): the app's route table (each tool takes its route's permission) and the server's version. */
export type McpPorts = McpRouteOptions;

/** The MCP module's one entry: /mcp, whose tools call the API's own routes in-process. */
export function registerMcp(app: FastifyInstance, ports: McpPorts): void {
  mcpRoutes(app, ports);
}

/** `spyglass mcp`: the stdio bridge, and the MCP SDK with it, loaded only by that command. */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const { runStdioBridge: run } = await import('./stdio-bridge.ts');
  return run(options);
}
