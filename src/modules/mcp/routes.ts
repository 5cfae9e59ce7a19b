import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteAuthEntry } from '../../platform/auth/index.ts';
import type { McpCaller, ToolPermissions } from './server.ts';
import { TOOLS, type ApiRequest } from './tools.ts';
import { tagged } from '../../platform/http/route-group.ts';

const MCP_TAG = { name: 'mcp', title: 'MCP' };

export interface McpRouteOptions {
  /** The app's route table: each tool takes the permission of the route it calls. */
  routeTable: RouteAuthEntry[];
  version: string;
}

/** Headers of the MCP request that carry its credentials to the routes its tools call. */
const CREDENTIAL_HEADERS = ['authorization', 'x-auth-token', 'cookie', 'x-csrf-token'] as const;

/**
 * Each tool's permission, read from the route table once every route is in it. A tool
 * whose route is missing is a programming error: it fails the first MCP request loudly
 * (and the MCP tests) instead of being listed without a permission.
 */
export function toolPermissions(routeTable: RouteAuthEntry[]): ToolPermissions {
  const permissions: ToolPermissions = new Map();
  // A group's root route is `/api/prompts/` in the table (prefix + '/'); it answers both spellings.
  const bare = (url: string) => (url.length > 1 ? url.replace(/\/$/, '') : url);
  for (const spec of TOOLS) {
    const [method, url] = spec.route.split(' ');
    const entry = routeTable.find((r) => r.method === method && bare(r.url) === url);
    if (!entry) throw new Error(`MCP tool ${spec.name}: no route ${spec.route} in the route table`);
    permissions.set(spec.name, 'permission' in entry.auth ? entry.auth.permission : null);
  }
  return permissions;
}

/** An answer's JSON; a body that is not JSON (a plain-text error) as its message. */
function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 500) };
  }
}

function queryString(query: ApiRequest['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/**
 * The Model Context Protocol over Streamable HTTP at /mcp, stateless: each POST carries its
 * credentials, gets a fresh server whose tools are those the key may use, and is answered as
 * JSON. Tools call the API's routes in-process (app.inject) with the same credentials, so
 * every tool is checked, validated and isolated exactly as the route it mirrors.
 */
export function mcpRoutes(app: FastifyInstance, { routeTable, version }: McpRouteOptions): void {
  let permissions: ToolPermissions | null = null;
  const auth = { scope: 'project', permission: null } as const;

  app.post(
    '/mcp',
    {
      config: { auth },
      schema: {
        ...tagged(MCP_TAG),
        summary: 'Model Context Protocol (Streamable HTTP, stateless, JSON answers): tools, resources and prompts for coding agents',
      },
    },
    async (req: FastifyRequest, reply: FastifyReply) => {
      permissions ??= toolPermissions(routeTable);
      const principal = req.principal!;
      const projectId = req.projectId!;
      const forwarded: Record<string, string> = { 'x-project-id': projectId, accept: 'application/json' };
      // The credentials, and the address the caller reached us at (links in answers, such as a
      // run's page, point where the agent's user can open them).
      for (const name of [...CREDENTIAL_HEADERS, 'host', 'x-forwarded-host', 'x-forwarded-proto']) {
        const value = req.headers[name];
        if (typeof value === 'string') forwarded[name] = value;
      }
      const caller: McpCaller = {
        can: (permission) => principal.projectPermissions(projectId).has(permission),
        async call(method, request) {
          const res = await app.inject({
            method: method as 'GET',
            url: request.path + queryString(request.query),
            headers: request.body === undefined ? forwarded : { ...forwarded, 'content-type': 'application/json' },
            ...(request.body === undefined ? {} : { payload: JSON.stringify(request.body) }),
          });
          return { status: res.statusCode, body: parseJson(res.body) };
        },
      };
      // The MCP SDK on first use: ~25 MiB of the server's memory that a server no agent talks to does not hold.
      const [{ buildMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([import('./server.ts'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]);
      const server = buildMcpServer(caller, permissions, version);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    },
  );

  // Stateless: no server-initiated stream (GET) and no session to end (DELETE), as the MCP
  // specification has a stateless server answer them.
  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply
      .status(405)
      .header('allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages to /mcp' }, id: null });
  const stateless = 'Answers 405: the MCP endpoint is stateless (no server-initiated stream, no session to end); POST /mcp takes every message';
  app.get('/mcp', { config: { auth }, schema: { ...tagged(MCP_TAG), summary: stateless } }, notAllowed);
  app.delete('/mcp', { config: { auth }, schema: { ...tagged(MCP_TAG), summary: stateless } }, notAllowed);
}
