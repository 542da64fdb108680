/**
 * POST /mcp: MCP over stateless Streamable HTTP. The caller is authenticated before any MCP
 * handling; each request gets its own server and transport, so no replica holds MCP sessions.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { createMcpServer, type McpDeps } from '../mcp/create-mcp-server.ts';
import { InFlightCalls } from '../mcp/in-flight-calls.ts';
import { authenticateBearer } from './authenticate-bearer.ts';

/** Registers POST /mcp, and GET/DELETE /mcp answering 405 (there are no MCP sessions to stream or end). */
export function registerMcpRoutes(app: FastifyInstance, deps: McpDeps): void {
  const inFlight = new InFlightCalls();
  app.post('/mcp', async (request, reply) => {
    const outcome = await authenticateBearer(request.headers.authorization, deps.sessions, deps.logger);
    if (!outcome.ok) {
      if (outcome.status === 401) reply.header('www-authenticate', 'Bearer realm="relay", error="invalid_token"');
      return sendJsonRpcError(reply, outcome.status, -32001, outcome.message);
    }
    const { caller } = outcome;
    if (caller.sessionId === undefined) {
      return sendJsonRpcError(
        reply,
        403,
        -32001,
        "This is a user's token; /mcp takes a session's token. Create one with POST /api/v1/sessions {\"external\": true}.",
      );
    }

    const server = createMcpServer({ userId: caller.userId, sessionId: caller.sessionId }, deps, inFlight);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });

  const notAllowed = async (_request: unknown, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    return sendJsonRpcError(reply, 405, -32000, 'Method not allowed: this relay serves MCP without sessions; POST JSON-RPC messages to /mcp.');
  };
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
}

/** A JSON-RPC error answered outside any MCP exchange (no request id is known). */
export function sendJsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}
