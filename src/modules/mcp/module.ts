import type { FastifyInstance } from 'fastify';
import { mcpRoutes, type McpRouteOptions } from './routes.ts';

/** What the MCP module is given (app.ts): the app's route table (each tool takes its route's permission) and the server's version. */
export type McpPorts = McpRouteOptions;

/** The MCP module's one entry: /mcp, whose tools call the API's own routes in-process. */
export function registerMcp(app: FastifyInstance, ports: McpPorts): void {
  mcpRoutes(app, ports);
}
