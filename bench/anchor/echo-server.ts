// The bare anchor of bench/gateway.bench.ts: Fastify + the MCP SDK's server with one `echo` tool, in the SDK's
// stateless Streamable HTTP mode (a server and a transport per POST, as the gateway answers /mcp), and nothing
// else — no authentication, no telemetry, no owners behind it. Started as its own process by the benchmark:
//   node --import tsx bench/anchor/echo-server.ts
// It listens on 127.0.0.1, port 0, and prints `listening <url>` on stdout once it answers.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import Fastify from 'fastify';
import { z } from 'zod';

function echoServer(): McpServer {
  const server = new McpServer({ name: 'anchor', version: '0.0.0' });
  server.registerTool('echo', { description: 'Answers its text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

const app = Fastify({ logger: false });
app.post('/mcp', async (request, reply) => {
  const server = echoServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  reply.hijack();
  await transport.handleRequest(request.raw, reply.raw, request.body);
});

const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${url}/mcp\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
