import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface StdioBridgeOptions {
  /** The Spyglass server's origin, e.g. http://localhost:3000. */
  server: string;
  apiKey: string;
  /** For organization keys: the project the session acts on (X-Project-Id). */
  projectId?: string;
}

/**
 * `spyglass mcp`: an MCP server on stdin/stdout for agents that launch a command. It holds no
 * tool of its own: every message goes to the running server's /mcp with the key, and every
 * answer comes back, so the tools, their permissions and their answers are the server's.
 * Resolves when stdin closes.
 */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const headers: Record<string, string> = { Authorization: `Bearer ${options.apiKey}` };
  if (options.projectId) headers['X-Project-Id'] = options.projectId;
  const upstream = new StreamableHTTPClientTransport(new URL('/mcp', options.server), { requestInit: { headers } });
  const local = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    local.onclose = () => {
      void upstream.close();
      resolve();
    };
  });

  // A request the server could not be asked (down, refused the key): its error goes back to the
  // agent as the answer to that request, so the agent says why instead of waiting forever.
  local.onmessage = (message: JSONRPCMessage) => {
    upstream.send(message).catch((err: unknown) => {
      if (!isJSONRPCRequest(message)) return;
      const reason = err instanceof Error ? err.message : String(err);
      void local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `Spyglass at ${options.server}: ${reason}` } });
    });
  };
  upstream.onmessage = (message) => void local.send(message);
  upstream.onerror = (err) => process.stderr.write(`spyglass mcp: ${err.message}\n`);
  await upstream.start();
  await local.start();
  await closed;
}
