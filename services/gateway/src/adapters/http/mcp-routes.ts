/**
 * /mcp: MCP over stateless Streamable HTTP, through the official SDK (@modelcontextprotocol/server 2.x), for the
 * 2026-07-28 revision and the 2025-11-25 and 2025-06-18 ones on the one endpoint (docs/adr/0036-mcp-2026.md). The
 * caller is authenticated before any MCP handling; each request gets its own server and transport, so no replica holds
 * MCP sessions: a 2026 request carries its revision and capabilities itself (the SDK's createMcpHandler serves it), a
 * 2025-era one is answered by a server built for it alone (the SDK's stateless streamable HTTP transport).
 * Before even that, Host and Origin must be of an allowed host (allowed-hosts.ts), against DNS rebinding. relay_tool's
 * reads of this relay that answer at once are answered without the SDK's server and transport (immediate-read.ts).
 * GET opens the standalone stream for an external session's client: it hears, as an MCP logging notification,
 * when a message is written into its conversation (pending-stream.ts). Any other caller gets 405.
 */
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHandlerRequestOptions,
  type RequestId,
} from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dispatchToolCall } from '../../app/relay-tool/dispatch.ts';
import type { Caller } from '../../domain/caller.ts';
import { preview } from '../../domain/input-bounds.ts';
import { toCallToolResult } from './mcp/call-tool-result.ts';
import { createMcpServer, type McpDeps } from './mcp/create-mcp-server.ts';
import { answersAtOnce, immediateReadOf, type ImmediateRead } from './mcp/immediate-read.ts';
import { InFlightCalls } from './mcp/in-flight-calls.ts';
import { McpTaskRunner } from './mcp/mcp-task-runner.ts';
import { invalidParamsOf } from './mcp/invalid-params.ts';
import type { AllowedHosts } from './allowed-hosts.ts';
import { authenticateBearer, setRefusalHeaders } from './authenticate-bearer.ts';
import { PendingStreams } from './pending-stream.ts';

/** The caller of an MCP request: a session's agent. */
type McpCaller = Caller & { sessionId: string };

/**
 * Registers POST /mcp, GET /mcp (the standalone stream of an external session's client; 405 for any other caller)
 * and DELETE /mcp answering 405 (there are no MCP sessions to end); each answers 403 first for a Host or Origin
 * that `allowedHosts` does not allow.
 */
export function registerMcpRoutes(app: FastifyInstance, deps: McpDeps, allowedHosts: AllowedHosts): void {
  const inFlight = new InFlightCalls();
  const pendingStreams = new PendingStreams(deps);
  // MCP tasks: this replica runs those it takes and those others stopped running, and hands its own over on SIGTERM.
  const { mcpTasks } = deps;
  const taskRunner = mcpTasks === undefined ? undefined : new McpTaskRunner({ ...deps, mcpTasks }, inFlight);
  if (taskRunner !== undefined) {
    taskRunner.claimEvery();
    app.addHook('preClose', () => taskRunner.handOver());
  }
  // The 2026-07-28 leg: the SDK builds a server per request from this factory, for the caller the route authenticated.
  const modern = createMcpHandler(({ authInfo }) => createMcpServer(callerOf(authInfo), deps, inFlight, taskRunner), {
    legacy: 'reject',
    onerror: (error) => deps.logger.debug({ err: error }, 'MCP request refused or failed'),
  });
  app.addHook('onClose', () => modern.close());
  // The MCP SDK's transport has the same check (enableDnsRebindingProtection), but it matches host:port exactly,
  // which a gateway on port 0 or behind an ingress cannot list, and it runs only after the token was checked.
  const checkHost = async (request: FastifyRequest, reply: FastifyReply) => {
    const { host, origin } = request.headers;
    if (!allowedHosts.allowsHost(host)) {
      return sendJsonRpcError(
        reply,
        403,
        -32000,
        `This relay does not answer /mcp as ${preview(host ?? '')}; its address, loopback and RELAY_ALLOWED_HOSTS are allowed.`,
      );
    }
    if (!allowedHosts.allowsOrigin(origin)) {
      return sendJsonRpcError(reply, 403, -32000, `This relay does not answer /mcp for pages of the origin ${preview(origin ?? '')}.`);
    }
  };
  app.post('/mcp', { onRequest: checkHost }, async (request, reply) => {
    const outcome = await authenticateBearer(request, deps.sessions, deps.logger);
    if (!outcome.ok) {
      setRefusalHeaders(reply, outcome);
      return sendJsonRpcError(reply, outcome.status, -32001, outcome.message);
    }
    const { caller } = outcome;
    if (caller.sessionId === undefined) {
      return sendJsonRpcError(
        reply,
        403,
        -32001,
        'This is a user\'s token; /mcp takes a session\'s token. Create one with POST /api/v1/sessions {"external": true}.',
      );
    }

    const mcpCaller: McpCaller = { userId: caller.userId, sessionId: caller.sessionId, ...(caller.external ? { external: true } : {}) };
    if (!(await request.server.fairCalls.admit(request, reply, mcpCaller))) return reply;
    const read = immediateReadOf(request.headers, request.body, deps.relayName);
    if (read !== undefined) return answerAtOnce(read, mcpCaller, deps, reply);
    // The MCP SDK answers params its schemas refuse with a bare schema dump: say what is wrong first.
    const invalid = invalidParamsOf(request.body);
    if (invalid !== undefined) return sendJsonRpcError(reply, 400, -32602, invalid.message, invalid.id);

    const gone = new AbortController();
    const options: McpHandlerRequestOptions = { parsedBody: request.body, authInfo: authInfoOf(mcpCaller) };
    const webRequest = webRequestOf(request, gone.signal);
    if (!(await isLegacyRequest(webRequest, request.body))) {
      reply.raw.on('close', () => gone.abort());
      return reply.send(await modern.fetch(webRequest, options));
    }
    // A 2025-era request: a server of its own over the SDK's stateless transport, which answers a message other than
    // tools/call in one JSON body (answersAtOnce) and a tools/call on an event stream (it may report progress).
    const server = createMcpServer(mcpCaller, deps, inFlight);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: answersAtOnce(request.body) });
    reply.raw.on('close', () => {
      gone.abort();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    return reply.send(await transport.handleRequest(webRequest, options));
  });

  const notAllowed = async (_request: unknown, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    return sendJsonRpcError(reply, 405, -32000, 'Method not allowed: this relay serves MCP without sessions; POST JSON-RPC messages to /mcp.');
  };
  app.get('/mcp', { onRequest: checkHost }, async (request, reply) => {
    const outcome = await authenticateBearer(request, deps.sessions, deps.logger);
    if (!outcome.ok) {
      setRefusalHeaders(reply, outcome);
      return sendJsonRpcError(reply, outcome.status, -32001, outcome.message);
    }
    const { caller } = outcome;
    // Only an external session's agent has anything to hear between its calls; a hosted agent is woken by its turns.
    if (caller.sessionId === undefined || caller.external !== true) return notAllowed(request, reply);
    const sessionId = caller.sessionId;
    const server = createMcpServer({ userId: caller.userId, sessionId, external: true }, deps, inFlight);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const closed = new AbortController();
    reply.raw.on('close', () => {
      closed.abort();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    pendingStreams.hold(sessionId, (notification) => server.notification(notification), closed.signal);
    return reply.send(openedAtOnce(await transport.handleRequest(webRequestOf(request, closed.signal))));
  });
  app.delete('/mcp', { onRequest: checkHost }, notAllowed);
}

/**
 * The channel of a read that answers at once: it reports no progress and waits on nothing that a client cancelling or
 * going away should stop, so it shares one signal that never aborts and is not tracked for `notifications/cancelled`
 * (two AbortControllers, a close listener and the tracking per call cost ~3 % of the gateway's busy time).
 */
const IMMEDIATE_CHANNEL = { signal: new AbortController().signal, progress: async () => {} };

/**
 * Answers a read of this relay that answers at once (immediate-read.ts) as the SDK answers in its JSON response mode:
 * one JSON-RPC result in one JSON body.
 */
async function answerAtOnce(read: ImmediateRead, caller: Caller & { sessionId: string }, deps: McpDeps, reply: FastifyReply): Promise<FastifyReply> {
  const channel = read.traceparent === undefined ? IMMEDIATE_CHANNEL : { ...IMMEDIATE_CHANNEL, traceparent: read.traceparent };
  const result = toCallToolResult(await dispatchToolCall(read.arguments, caller, deps, channel));
  return reply.type('application/json').send({ result, jsonrpc: '2.0', id: read.id });
}

/** The caller the route authenticated, as the SDK hands it to the server factory (pass-through, never from headers). */
function authInfoOf(caller: McpCaller): AuthInfo {
  return { token: '', clientId: caller.sessionId, scopes: [], extra: { caller } };
}

function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = authInfo?.extra?.caller as McpCaller | undefined;
  if (caller === undefined) throw new Error('an MCP request reached the SDK without the caller the route authenticated');
  return caller;
}

/**
 * The web Request the SDK reads: the method, headers and URL of Fastify's request, its body already parsed (passed
 * as parsedBody), aborted when the client goes away.
 */
function webRequestOf(request: FastifyRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(new URL(request.url, 'http://relay'), { method: request.method, headers, signal });
}

/**
 * An event stream that opens at once: Node sends a response's headers with its first bytes, and the SDK's stream has
 * none until its first notification or keep-alive (15 s), so its client would wait that long for the answer to its GET.
 * A first comment (`: open`, which every SSE reader skips) sends them now. Any other answer is left as it is.
 */
function openedAtOnce(response: Response): Response {
  if (response.body === null || response.headers.get('content-type')?.startsWith('text/event-stream') !== true) return response;
  const opening = new TextEncoder().encode(': open\n\n');
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start: (controller) => controller.enqueue(opening),
    }),
  );
  return new Response(body, { status: response.status, headers: response.headers });
}

/** A JSON-RPC error answered outside any MCP exchange: of the request `id`, or of none known (null). */
export function sendJsonRpcError(reply: FastifyReply, status: number, code: number, message: string, id: RequestId | null = null): FastifyReply {
  return reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id });
}
