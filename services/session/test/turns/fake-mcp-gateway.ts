/**
 * A stand-in for the gateway's MCP endpoint (a port we own): POST /mcp, stateless, one relay_tool
 * that records each call with its bearer token and answers `{ ok: true, action, args }`, or what
 * `answer` returns. The real gateway path is covered end to end.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface ToolCall {
  token: string;
  args: Record<string, unknown>;
}

export interface FakeMcpGateway {
  url: string;
  calls: ToolCall[];
  /** The most calls in progress at once per `args.session` (to see overlapping turns). */
  maxConcurrentBySession: Map<string, number>;
  answer: (call: ToolCall) => Promise<unknown>;
  close(): Promise<void>;
}

export async function startFakeMcpGateway(): Promise<FakeMcpGateway> {
  const active = new Map<string, number>();
  const gateway: FakeMcpGateway = {
    url: '',
    calls: [],
    maxConcurrentBySession: new Map(),
    answer: async (call) => ({ ok: true, action: call.args['action'], args: call.args }),
    close: async () => undefined,
  };

  const http: HttpServer = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/mcp') {
      res.writeHead(405).end();
      return;
    }
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const server = new Server({ name: 'fake-gateway', version: '0.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'relay_tool', inputSchema: { type: 'object' as const } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const call: ToolCall = { token, args: (request.params.arguments ?? {}) as Record<string, unknown> };
      gateway.calls.push(call);
      const session = String(call.args['session'] ?? '');
      const now = (active.get(session) ?? 0) + 1;
      active.set(session, now);
      gateway.maxConcurrentBySession.set(session, Math.max(now, gateway.maxConcurrentBySession.get(session) ?? 0));
      try {
        const result = await gateway.answer(call);
        return { content: [{ type: 'text', text: JSON.stringify(result) }] };
      } finally {
        active.set(session, (active.get(session) ?? 1) - 1);
      }
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  gateway.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  gateway.close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return gateway;
}
