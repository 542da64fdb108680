// Anthropic's Managed Agents API (beta managed-agents-2026-04-01) on loopback, for the claude-cloud provider, which
// cannot reach Anthropic from here: the documented paths and shapes (POST /v1/sessions, GET /v1/sessions/{id},
// POST /v1/sessions/{id}/events, GET /v1/sessions/{id}/events (the session's history, one page),
// GET /v1/sessions/{id}/events/stream as server-sent events), the headers the official
// SDK sends (the API key, as x-api-key or, as the SDK 1.14 sends it, Authorization: Bearer; anthropic-beta), and the session's life as documented: a user.message makes it running; a
// tool call with evaluated_permission "ask" idles it with stop_reason requires_action until a user.tool_confirmation
// for that call comes; user.interrupt ends what runs; each turn ends with session.status_idle and end_turn. What the
// agent does for a message is the suite's `onMessage`. Vaults hold static_bearer credentials for MCP servers
// (POST /v1/vaults, /v1/vaults/{id}/credentials, /v1/vaults/{id}/credentials/{credential}); a session's MCP tool call
// goes to its server's URL with the credential its vaults hold for it, through `route` (the suite's ingress: the
// public URL the relay was configured with, to the loopback gateway that answers it).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** A cloud session as the fake keeps it. */
export interface FakeCloudSession {
  id: string;
  /** The body of the POST /v1/sessions that made it. */
  created: any;
  status: 'idle' | 'running' | 'terminated';
  /** Every event sent to it (POST …/events), in order. */
  received: any[];
}

/** One message being handled: what the suite's agent may do. */
export interface CloudTurn {
  session: FakeCloudSession;
  text: string;
  /** Writes an event to the session's open streams (its id and processed_at added). */
  emit(event: Record<string, unknown>): void;
  /** A model request that answers `text`, with its tokens, and the session's cumulative usage after it. */
  reply(text: string, tokens: { input: number; output: number }): void;
  /** Calls a tool that asks: resolves with the user.tool_confirmation sent for it. */
  askTool(name: string, input: Record<string, unknown>): Promise<any>;
  /** Ends the turn otherwise than with end_turn: session.status_idle with this stop_reason (and stop_details). */
  end(stopReason: Record<string, unknown>, stopDetails?: Record<string, unknown>): void;
  /**
   * Calls `tool` of the session's MCP server `server` (its toolset always_allow), with the bearer token its vaults
   * hold for that server's URL: the tool's text.
   */
  callMcp(server: string, tool: string, args: Record<string, unknown>): Promise<string>;
  /** Resolves when a user.interrupt comes. */
  interrupted: Promise<void>;
}

export interface FakeCloudApi {
  /** The base URL for RELAY_CLAUDE_CLOUD_BASE_URL. */
  url: string;
  sessions: Map<string, FakeCloudSession>;
  /** Every request: method, path, the API key it carried and its anthropic-beta header. */
  requests: { method: string; path: string; apiKey: string | undefined; beta: string | undefined }[];
  /** The vaults' credentials: their vault, MCP server URL and token. */
  credentials: Map<string, { vault: string; url: string; token: string }>;
  /** Where the cloud reaches an MCP server's public URL (the suite's ingress). */
  route: Map<string, string>;
  close(): Promise<void>;
}

/** What a cent costs per token in the fake's list prices (for session.usage's list_cost). */
const CENTS_PER_TOKEN = 0.01;

export async function startFakeClaudeCloudApi(options: { onMessage: (turn: CloudTurn) => Promise<void> }): Promise<FakeCloudApi> {
  const sessions = new Map<string, FakeCloudSession>();
  const streams = new Map<string, Set<ServerResponse>>();
  const confirmations = new Map<string, (confirmation: any) => void>();
  const interrupts = new Map<string, () => void>();
  const usage = new Map<string, { input_tokens: number; output_tokens: number }>();
  const history = new Map<string, any[]>();
  const credentials: FakeCloudApi['credentials'] = new Map();
  const route: FakeCloudApi['route'] = new Map();
  const requests: FakeCloudApi['requests'] = [];
  let next = 0;
  const id = (prefix: string) => `${prefix}_${String(++next).padStart(6, '0')}`;

  const emit = (session: FakeCloudSession, event: Record<string, unknown>) => {
    const full = { id: id('sevt'), processed_at: new Date().toISOString(), ...event };
    history.set(session.id, [...(history.get(session.id) ?? []), full]);
    for (const stream of streams.get(session.id) ?? []) stream.write(`event: message\ndata: ${JSON.stringify(full)}\n\n`);
    return full;
  };
  const idle = (session: FakeCloudSession, stopReason: Record<string, unknown>, stopDetails: Record<string, unknown> | null = null) => {
    session.status = 'idle';
    emit(session, { type: 'session.status_idle', stop_reason: stopReason, stop_details: stopDetails });
  };

  const turn = (session: FakeCloudSession, text: string): CloudTurn => {
    let interrupted!: () => void;
    const interruption = new Promise<void>((resolve) => (interrupted = resolve));
    interrupts.set(session.id, interrupted);
    return {
      session,
      text,
      emit: (event) => void emit(session, event),
      reply: (reply, tokens) => {
        const start = emit(session, { type: 'span.model_request_start' });
        emit(session, { type: 'agent.message', content: [{ type: 'text', text: reply }] });
        emit(session, {
          type: 'span.model_request_end',
          model_request_start_id: start.id,
          is_error: false,
          model_usage: { input_tokens: tokens.input, output_tokens: tokens.output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        });
        const total = usage.get(session.id) ?? { input_tokens: 0, output_tokens: 0 };
        total.input_tokens += tokens.input;
        total.output_tokens += tokens.output;
        usage.set(session.id, total);
        const cents = Math.round((total.input_tokens + total.output_tokens) * CENTS_PER_TOKEN);
        emit(session, {
          type: 'session.usage',
          usage: { ...total, list_cost: { amount: String(cents), currency: 'USD' } },
          budget: session.created.budget ?? null,
        });
      },
      askTool: (name, input) => {
        const use = emit(session, { type: 'agent.tool_use', name, input, evaluated_permission: 'ask', evaluation: { type: 'always_ask' } });
        const confirmed = new Promise<any>((resolve) => confirmations.set(use.id, resolve));
        idle(session, { type: 'requires_action', event_ids: [use.id] });
        return confirmed;
      },
      end: (stopReason, stopDetails) => idle(session, stopReason, stopDetails),
      callMcp: async (server, tool, args) => {
        const config = (session.created.agent.mcp_servers ?? []).find((candidate: any) => candidate.name === server);
        const toolset = session.created.agent.tools.find((candidate: any) => candidate.type === 'mcp_toolset' && candidate.mcp_server_name === server);
        if (config === undefined || toolset?.default_config?.permission_policy?.type !== 'always_allow')
          throw new Error(`the session has no MCP server ${server} it may call unasked`);
        const use = emit(session, { type: 'agent.mcp_tool_use', mcp_server_name: server, name: tool, input: args, evaluated_permission: 'allow' });
        const credential = [...credentials.values()].find((held) => (session.created.vault_ids ?? []).includes(held.vault) && held.url === config.url);
        const client = new Client({ name: 'fake-claude-cloud', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(route.get(config.url) ?? config.url), {
            requestInit: { headers: { authorization: `Bearer ${credential?.token ?? ''}` } },
          }),
        );
        try {
          const result: any = await client.callTool({ name: tool, arguments: args });
          const text = result.content.map((part: any) => part.text ?? '').join('');
          emit(session, { type: 'agent.mcp_tool_result', mcp_tool_use_id: use.id, content: [{ type: 'text', text }], is_error: result.isError === true });
          return text;
        } finally {
          await client.close();
        }
      },
      interrupted: interruption,
    };
  };

  /** Takes an event sent (with the id it is given), written to the session's events as the API does. */
  const receive = (session: FakeCloudSession, event: any) => {
    session.received.push(event);
    if (event.type === 'user.message') {
      session.status = 'running';
      emit(session, event);
      emit(session, { type: 'session.status_running' });
      const text = event.content.map((block: any) => block.text ?? '').join('');
      void options.onMessage(turn(session, text)).then(() => {
        if (session.status === 'running') idle(session, { type: 'end_turn' });
      });
    } else if (event.type === 'user.tool_confirmation') {
      const confirmed = confirmations.get(event.tool_use_id);
      if (confirmed === undefined) return false;
      confirmations.delete(event.tool_use_id);
      emit(session, event);
      session.status = 'running';
      emit(session, { type: 'session.status_running' });
      confirmed(event);
    } else if (event.type === 'user.interrupt') {
      interrupts.get(session.id)?.();
      if (session.status === 'running') idle(session, { type: 'end_turn' });
    }
    return true;
  };

  const server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? '/', 'http://fake').pathname;
      const apiKey = header(request, 'x-api-key') ?? /^Bearer (.+)$/.exec(header(request, 'authorization') ?? '')?.[1];
      requests.push({ method: request.method ?? '', path, apiKey, beta: header(request, 'anthropic-beta') });
      if (apiKey === undefined)
        return json(response, 401, {
          type: 'error',
          error: { type: 'authentication_error', message: 'an API key is required (x-api-key or Authorization: Bearer)' },
        });
      if (!(header(request, 'anthropic-beta') ?? '').split(',').includes('managed-agents-2026-04-01')) {
        return json(response, 400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'this endpoint is in beta: send anthropic-beta: managed-agents-2026-04-01' },
        });
      }
      if (request.method === 'POST' && path === '/v1/vaults') {
        const body = await readBody(request);
        return json(response, 200, { type: 'vault', id: id('vlt'), display_name: body.display_name });
      }
      const vaultCredential = /^\/v1\/vaults\/([^/]+)\/credentials(?:\/([^/]+))?$/.exec(path);
      if (request.method === 'POST' && vaultCredential !== null) {
        const body = await readBody(request);
        const [, vault, existing] = vaultCredential;
        const held = existing === undefined ? { vault: vault!, url: body.auth.mcp_server_url, token: body.auth.token } : credentials.get(existing);
        if (held === undefined || held.vault !== vault)
          return json(response, 404, { type: 'error', error: { type: 'not_found_error', message: 'credential not found' } });
        if (existing !== undefined) held.token = body.auth.token;
        const credentialId = existing ?? id('vcrd');
        credentials.set(credentialId, held);
        return json(response, 200, { type: 'vault_credential', id: credentialId, vault_id: vault, auth: { type: 'static_bearer', mcp_server_url: held.url } });
      }
      if (request.method === 'POST' && path === '/v1/sessions') {
        const body = await readBody(request);
        const session: FakeCloudSession = { id: id('sesn'), created: body, status: 'idle', received: [] };
        sessions.set(session.id, session);
        return json(response, 200, sessionView(session));
      }
      const match = /^\/v1\/sessions\/([^/]+)(\/events(\/stream)?)?$/.exec(path);
      const session = match === null ? undefined : sessions.get(match[1]!);
      if (session === undefined) return json(response, 404, { type: 'error', error: { type: 'not_found_error', message: 'session not found' } });
      if (request.method === 'GET' && match![2] === undefined) return json(response, 200, sessionView(session));
      if (request.method === 'GET' && match![3] === undefined) return json(response, 200, { data: history.get(session.id) ?? [], next_page: null });
      if (request.method === 'GET' && match![3] !== undefined) {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        response.write(': open\n\n');
        const open = streams.get(session.id) ?? new Set();
        open.add(response);
        streams.set(session.id, open);
        request.once('close', () => open.delete(response));
        return;
      }
      if (request.method === 'POST' && match![2] !== undefined) {
        const body = await readBody(request);
        const sent = body.events.map((event: any) => ({ id: id('sevt'), ...event }));
        const unknown = sent.filter((event: any) => !receive(session, event));
        if (unknown.length > 0)
          return json(response, 400, { type: 'error', error: { type: 'invalid_request_error', message: `no pending tool call ${unknown[0].tool_use_id}` } });
        return json(response, 200, { data: sent });
      }
      json(response, 404, { type: 'error', error: { type: 'not_found_error', message: `${request.method} ${path}` } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    requests,
    credentials,
    route,
    close: () => {
      for (const open of streams.values()) for (const stream of open) stream.end();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function sessionView(session: FakeCloudSession): Record<string, unknown> {
  return {
    type: 'session',
    id: session.id,
    status: session.status,
    archived_at: null,
    title: session.created.title ?? null,
    environment_id: session.created.environment_id,
    metadata: session.created.metadata ?? {},
    resources: session.created.resources ?? [],
    budget: session.created.budget ?? null,
  };
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<any> {
  let text = '';
  for await (const part of request) text += part;
  return text === '' ? {} : JSON.parse(text);
}
