export { registerMcp, type McpPorts } from './module.ts';
import type { StdioBridgeOptions } from './stdio-bridge.ts';

/** `spyglass mcp`: the stdio bridge, and the MCP SDK with it, loaded only by that command. */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const { runStdioBridge: run } = await import('./stdio-bridge.ts');
  return run(options);
}
