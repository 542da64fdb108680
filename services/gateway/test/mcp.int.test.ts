import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AgentLevel } from '@relay/proto/relay/pairing/v1/pairing_service';
import { SessionOrigin, SessionState } from '@relay/proto/relay/session/v1/session';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;
let token: string;
const clients: Client[] = [];

beforeAll(async () => {
  gateway = await startGateway('desk');
  const agent = gateway.owners.addAgentSession('u1', { title: 'Watcher' });
  token = agent.token;
});

afterAll(async () => {
  await gateway.close();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  gateway.owners.reset();
});

async function connect(bearer = token): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  const client = new Client({ name: 'gateway-test', version: '0.0.1' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, args: unknown, name = 'relay_tool') {
  const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe('text');
  return { isError: result.isError, body: JSON.parse(content[0]!.text) as Record<string, unknown> };
}

function pair(name: string, level: AgentLevel) {
  gateway.owners.paired.push({ name, url: `https://${name}.example.com`, online: true, version: '0.9.19', level, ownerUserId: 'u1', pairedAt: undefined });
}

describe('tools/list', () => {
  it('lists only relay_tool, with every action in its schema', async () => {
    const { tools } = await (await connect()).listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['relay_tool']);
    const action = (tools[0]!.inputSchema.properties as Record<string, { enum: string[] }>).action!;
    expect(action.enum).toContain('list_relays');
    expect(action.enum).toContain('list_sessions');
    expect(action.enum).toContain('withdraw');
  });

  it('lists nothing when relay_tool is off', async () => {
    gateway.owners.settings.agentSessionsEnabled = false;
    pair('build-box', AgentLevel.AGENT_LEVEL_OFF);
    expect((await (await connect()).listTools()).tools).toEqual([]);
  });

  it('lists relay_tool when only a paired relay lets agents in', async () => {
    gateway.owners.settings.agentSessionsEnabled = false;
    pair('build-box', AgentLevel.AGENT_LEVEL_READ);
    expect((await (await connect()).listTools()).tools.map((tool) => tool.name)).toEqual(['relay_tool']);
  });
});

describe('list_relays', () => {
  it('answers the spec shape, this relay first', async () => {
    pair('build-box', AgentLevel.AGENT_LEVEL_FULL);
    pair('nas', AgentLevel.AGENT_LEVEL_READ_AND_PROMPT);
    const { isError, body } = await call(await connect(), { action: 'list_relays' });
    expect(isError).toBe(false);
    expect(body).toEqual({
      ok: true,
      summary: 'list_relays: 3 relays, 1 unlocked',
      self: { name: 'desk' },
      relays: [
        { name: 'desk', self: true, online: true, version: '0.9.19', permission: 'full', unlocked: true },
        { name: 'build-box', url: 'https://build-box.example.com', online: true, version: '0.9.19', permission: 'full', unlocked: false },
        { name: 'nas', url: 'https://nas.example.com', online: true, version: '0.9.19', permission: 'read_and_prompt', unlocked: false },
      ],
      limits: { maxWaitSeconds: 600, maxActiveSessions: 4 },
    });
  });

  it('answers the same under the old name remote_relay', async () => {
    const client = await connect();
    const current = await call(client, { action: 'list_relays' });
    const legacy = await call(client, { action: 'list_relays' }, 'remote_relay');
    expect(legacy).toEqual(current);
  });

  it('still works while relay_tool is off, without this relay', async () => {
    gateway.owners.settings.agentSessionsEnabled = false;
    const { body } = await call(await connect(), { action: 'list_relays' });
    expect(body).toMatchObject({ ok: true, summary: 'list_relays: 0 relays, 0 unlocked', self: { name: 'desk' }, relays: [] });
  });

  it('lists the arguments it does not take in ignored', async () => {
    const { body } = await call(await connect(), { action: 'list_relays', relay: 'this', scope: '', text: 'hi' });
    expect(body).toMatchObject({ ok: true, ignored: ['relay', 'text'] });
  });
});

describe('list_sessions', () => {
  it("lists the caller's user's active sessions", async () => {
    const other = gateway.owners.addAgentSession('u1', {
      title: 'Review: server/',
      state: SessionState.SESSION_STATE_RUNNING_TURN,
      cwd: '/home/dev/shop',
      messageCount: 7,
      lastActivityAt: new Date('2026-10-18T09:12:00.000Z'),
    }).session;
    gateway.owners.addAgentSession('u1', { title: 'Old', archived: true });
    gateway.owners.addAgentSession('u2', { title: 'Not mine' });

    const { isError, body } = await call(await connect(), { action: 'list_sessions', relay: 'this' });
    expect(isError).toBe(false);
    expect(body).toMatchObject({ ok: true, relay: 'desk', summary: 'list_sessions → desk: 2 sessions' });
    const sessions = body.sessions as Record<string, unknown>[];
    expect(sessions.map((s) => s.title).sort()).toEqual(['Review: server/', 'Watcher']);
    expect(sessions.find((s) => s.id === other.id)).toEqual({
      id: other.id,
      title: 'Review: server/',
      provider: 'script',
      model: 'script-1',
      state: 'running_turn',
      cwd: '/home/dev/shop',
      lastActivityAt: '2026-10-18T09:12:00.000Z',
      messageCount: 7,
      tasks: [],
    });
  });

  it('takes scope archived and all, and the relay by its own name', async () => {
    const client = await connect();
    const archived = await call(client, { action: 'list_sessions', relay: 'Desk', scope: 'archived' });
    expect((archived.body.sessions as { title: string; archived: boolean }[]).every((s) => s.archived)).toBe(true);
    const all = await call(client, { action: 'list_sessions', relay: 'this', scope: 'all' });
    expect((all.body.sessions as unknown[]).length).toBeGreaterThan((archived.body.sessions as unknown[]).length);
  });

  it('lists a page of 100 with sessionsTotal and a note, and page reads the rest', async () => {
    const client = await connect();
    const before = ((await call(client, { action: 'list_sessions', relay: 'this' })).body.sessions as unknown[]).length;
    for (let n = before; n < 250; n++) gateway.owners.addAgentSession('u1', { title: `Worker ${n}` });
    const first = await call(client, { action: 'list_sessions', relay: 'this' });
    expect(first.body).toMatchObject({ ok: true, summary: 'list_sessions → desk: 100 of 250 sessions (page 1 of 3)', sessionsTotal: 250, page: 1 });
    expect(first.body.note).toBe('Sessions 1–100 of 250, the most recently active first. Call list_sessions with "page": 2 for the next 100.');
    expect((first.body.sessions as unknown[]).length).toBe(100);
    expect(gateway.owners.calls.at(-1)).toMatchObject({ method: 'listSessions', request: { limit: 100, offset: 0 } });

    const last = await call(client, { action: 'list_sessions', relay: 'this', page: 3 });
    expect(gateway.owners.calls.at(-1)).toMatchObject({ method: 'listSessions', request: { limit: 100, offset: 200 } });
    expect(last.body).toMatchObject({
      summary: 'list_sessions → desk: 50 of 250 sessions (page 3 of 3)',
      note: 'Sessions 201–250 of 250, the most recently active first.',
    });
    expect((last.body.sessions as { title: string }[]).map((s) => s.title).at(-1)).toBe('Worker 249');

    const past = await call(client, { action: 'list_sessions', relay: 'this', page: 4 });
    expect(past.body).toMatchObject({ ok: true, sessions: [], sessionsTotal: 250, note: 'Page 4 is past the last one: 250 sessions fill 3 pages of 100.' });
  });

  it.each([0, -1, 100_001])('refuses page %d', async (page) => {
    const { isError, body } = await call(await connect(), { action: 'list_sessions', relay: 'this', page });
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT', error: `list_sessions: page must be from 1 to 100000; got ${page}.` });
    expect(gateway.owners.calls.some((c) => c.method === 'listSessions')).toBe(false);
  });

  it('refuses an unknown scope', async () => {
    const { isError, body } = await call(await connect(), { action: 'list_sessions', relay: 'this', scope: 'recent' });
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
  });

  it('refuses an unknown relay', async () => {
    const { body } = await call(await connect(), { action: 'list_sessions', relay: 'laptop' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_RELAY' });
  });

  it('answers REMOTE_RELAY_DISABLED while relay_tool is off', async () => {
    gateway.owners.settings.agentSessionsEnabled = false;
    const { isError, body } = await call(await connect(), { action: 'list_sessions', relay: 'this' });
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_DISABLED' });
  });

  it('answers REMOTE_RELAY_DISABLED for this relay when only a paired relay lets agents in', async () => {
    gateway.owners.settings.agentSessionsEnabled = false;
    pair('build-box', AgentLevel.AGENT_LEVEL_FULL);
    const { body } = await call(await connect(), { action: 'list_sessions', relay: 'this' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_DISABLED' });
  });

  it('hides a fault of the session service as REMOTE_RELAY_INTERNAL', async () => {
    gateway.owners.failing.add('listSessions');
    const { body } = await call(await connect(), { action: 'list_sessions', relay: 'this' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INTERNAL' });
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });
});

describe('bad calls', () => {
  it.each([
    ['an unknown action', { action: 'dance' }],
    ['no action', { relay: 'this' }],
    ['a wrong type', { action: 'list_sessions', relay: 42 }],
    ['a wrong list', { action: 'list_sessions', relay: 'this', scope: ['all'] }],
  ])('answers REMOTE_RELAY_INVALID_INPUT for %s, and keeps answering', async (_label, args) => {
    const client = await connect();
    const { isError, body } = await call(client, args);
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(typeof body.error).toBe('string');
    expect((await call(client, { action: 'list_relays' })).body.ok).toBe(true);
  });

  it('names the valid actions for an unknown one', async () => {
    const { body } = await call(await connect(), { action: 'dance' });
    expect(body.error).toContain('list_sessions');
  });

  it.each([
    ['a string', 'list_relays'],
    ['a list', [{ action: 'list_relays' }]],
    ['a number', 7],
  ])('answers REMOTE_RELAY_INVALID_INPUT for arguments that are %s', async (_label, args) => {
    const client = await connect();
    const { isError, body } = await call(client, args);
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect((await call(client, { action: 'list_relays' })).body.ok).toBe(true);
  });

  it('usage answers each provider as not tracked or not set up, with no meters yet', async () => {
    const { body } = await call(await connect(), { action: 'usage', relay: 'this' });
    expect(body).toMatchObject({ ok: true, claudeUsageLimitPaused: false });
    const providers = body.providers as { status: string }[];
    expect(providers.length).toBeGreaterThan(0);
    for (const provider of providers) expect(['not_tracked', 'not_set_up']).toContain(provider.status);
  });

  it('refuses create_session with an argument it does not take before anything else', async () => {
    const { body } = await call(await connect(), { action: 'create_session', relay: 'this', text: 'go', session: 'x' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(body.error).toContain('Nothing was created.');
  });

  it('answers a protocol error for another tool name', async () => {
    const client = await connect();
    await expect(client.callTool({ name: 'other_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect((await call(client, { action: 'list_relays' })).body.ok).toBe(true);
  });
});

describe('authentication', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } },
  };
  const post = (headers: Record<string, string>) =>
    fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(initialize),
    });

  it('answers 401 with WWW-Authenticate without a token', async () => {
    const response = await post({});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 }, id: null });
  });

  it('answers 401 for an unknown token', async () => {
    const response = await post({ authorization: 'Bearer rs_nope' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it("answers 403 for a user's token", async () => {
    const response = await post({ authorization: `Bearer ${gateway.owners.addUser('u1')}` });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('/api/v1/sessions');
  });

  it('answers 503 when tokens cannot be checked', async () => {
    gateway.owners.failing.add('authenticate');
    expect((await post({ authorization: `Bearer ${token}` })).status).toBe(503);
  });

  it('answers a JSON-RPC parse error to a body that is not JSON', async () => {
    const response = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: '{"jsonrpc": "2.0",',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
  });

  it("opens an external session's GET event stream at once: its headers come before any notification or keep-alive", async () => {
    const external = gateway.owners.addAgentSession('u1', { title: 'Editor', origin: SessionOrigin.SESSION_ORIGIN_EXTERNAL });
    const stream = new AbortController();
    try {
      // Nothing waits in the session: the stream has nothing to say for its first keep-alive's 15 s, past this test's time.
      const response = await fetch(`${gateway.url}/mcp`, {
        headers: { authorization: `Bearer ${external.token}`, accept: 'text/event-stream' },
        signal: stream.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const first = await response.body!.getReader().read();
      expect(new TextDecoder().decode(first.value)).toBe(': open\n\n');
    } finally {
      stream.abort();
    }
  });

  it('answers 405 to GET and DELETE', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${gateway.url}/mcp`, { method, headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(405);
    }
  });
});

describe('reads answered at once (immediate-read.ts)', () => {
  const headers = () => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` });
  const listSessions = (id: unknown, relay: unknown = 'this') => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'relay_tool', arguments: { action: 'list_sessions', relay } },
  });
  const post = (body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { ...headers(), ...extra }, body: JSON.stringify(body) });

  /** The JSON-RPC messages of an event-stream answer. */
  async function eventsOf(response: Response): Promise<unknown[]> {
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    return (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
  }

  it('answers a list_sessions of this relay in one JSON body, the same result the SDK gives the call in a batch', async () => {
    gateway.owners.addAgentSession('u1', { title: 'Builder' });
    const once = await post(listSessions('a-1'));
    expect(once.status).toBe(200);
    expect(once.headers.get('content-type')).toMatch(/^application\/json/);
    expect(once.headers.get('x-content-type-options')).toBe('nosniff');
    const answered = (await once.json()) as { jsonrpc: string; id: unknown; result: { content: { text: string }[]; isError: boolean } };
    expect(answered).toMatchObject({ jsonrpc: '2.0', id: 'a-1', result: { isError: false } });
    expect(JSON.parse(answered.result.content[0]!.text)).toMatchObject({ ok: true });

    // A batch is never answered here: the SDK answers it, on an event stream.
    const [batched] = (await eventsOf(await post([listSessions('a-1')]))) as (typeof answered)[];
    expect(batched).toEqual(answered);
  });

  // This gateway has no subscription service: list_subscriptions answers its refusal, the same either way.
  it.each([
    ['list_questions', { ok: true, relay: 'desk' }],
    ['list_subscriptions', { ok: false, code: 'REMOTE_RELAY_UNSUPPORTED' }],
  ])('answers a %s of this relay in one JSON body too, the result the SDK gives in a batch', async (action, expected) => {
    const read = { ...listSessions('w-1'), params: { name: 'relay_tool', arguments: { action } } };
    const once = await post(read);
    expect(once.headers.get('content-type')).toMatch(/^application\/json/);
    const answered = (await once.json()) as { result: { content: { text: string }[] } };
    expect(JSON.parse(answered.result.content[0]!.text)).toMatchObject(expected);
    const [batched] = await eventsOf(await post([read]));
    expect(batched).toEqual(answered);
  });

  it('answers a refused read in one JSON body too, as a tool result with isError', async () => {
    const response = await post({ ...listSessions(7), params: { name: 'relay_tool', arguments: { action: 'list_sessions', relay: 'this', scope: 'nope' } } });
    expect(response.status).toBe(200);
    const { result, id } = (await response.json()) as { id: unknown; result: { isError: boolean; content: { text: string }[] } };
    expect(id).toBe(7);
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
  });

  it('leaves what the SDK would refuse to the SDK: Accept, protocol version, a malformed request id', async () => {
    const notAcceptable = await post(listSessions(1), { accept: 'application/json' });
    expect(notAcceptable.status).toBe(406);
    const unsupported = await post(listSessions(1), { 'mcp-protocol-version': '1999-01-01' });
    expect(unsupported.status).toBe(400);
    expect(((await unsupported.json()) as { error: { message: string } }).error.message).toContain('Unsupported protocol version');
    const fractionalId = await post(listSessions(1.5));
    expect(fractionalId.status).toBe(400);
    expect(await fractionalId.json()).toMatchObject({ error: { code: -32600 } });
  });

  it("leaves a 2026-07-28 read to the SDK, whose result carries that revision's fields", async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'gateway-test', version: '0.0.1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const modern = { ...listSessions('m-1'), params: { ...listSessions('m-1').params, _meta: envelope } };
    const response = await post(modern, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'relay_tool' });
    expect(response.status).toBe(200);
    const answered = (await response.json()) as { id: unknown; result: { resultType: string; _meta: Record<string, unknown>; content: { text: string }[] } };
    expect(answered).toMatchObject({ id: 'm-1', result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'relay' } } } });
    expect(JSON.parse(answered.result.content[0]!.text)).toMatchObject({ ok: true, relay: 'desk' });
  });

  it('keeps the event stream for a read of a paired relay, which may report progress', async () => {
    pair('lab', AgentLevel.AGENT_LEVEL_READ);
    const response = await post(listSessions(3, 'lab'));
    expect(response.status).toBe(200);
    expect(await eventsOf(response)).toHaveLength(1);
  });
});
