import type { SpyglassModule } from '../../platform/module.ts';
import { packageVersion } from '../../package-dir.ts';
import { mcpRoutes } from './routes.ts';
import type { StdioBridgeOptions } from './stdio-bridge.ts';

/** The MCP module's one entry: /mcp, whose tools call the API's own routes in-process (each takes its route's permission from the route table). */
export const mcpModule: SpyglassModule<unknown> = {
  name: 'mcp',
  register: ({ http, routeTable }) => mcpRoutes(http, { routeTable, version: packageVersion() }),
};

/** `spyglass mcp`: the stdio bridge, and the MCP SDK with it, loaded only by that command. */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const { runStdioBridge: run } = await import('./stdio-bridge.ts');
  return run(options);
}
