import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AppError } from '@relay/errors';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;
let userToken: string;

beforeAll(async () => {
  gateway = await startGateway('desk');
  userToken = gateway.owners.addUser('u1');
});

afterAll(async () => {
  await gateway.close();
});

function api(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${gateway.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

describe('/api/v1', () => {
  it('creates an external session whose token works on /mcp, and lists it', async () => {
    const created = await api('/api/v1/sessions', { method: 'POST', token: userToken, body: { external: true, title: 'My editor' } });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { session: { id: string; title: string }; token: string; mcpUrl: string };
    expect(body.session.title).toBe('My editor');
    expect(body.token).toMatch(/\S{16,}/);
    expect(body.mcpUrl).toBe('https://desk.example.com/mcp');

    const listed = await api('/api/v1/sessions', { token: userToken });
    expect(listed.status).toBe(200);
    const { sessions } = (await listed.json()) as { sessions: { id: string; state: string; tasks: unknown[] }[] };
    expect(sessions.map((s) => s.id)).toContain(body.session.id);
    expect(sessions[0]).toMatchObject({ state: 'idle', tasks: [] });

    const client = new Client({ name: 'my-editor', version: '0.0.1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${body.token}` } } }),
    );
    const result = await client.callTool({ name: 'relay_tool', arguments: { action: 'list_sessions', relay: 'this' } });
    const listedByAgent = JSON.parse((result.content as { text: string }[])[0]!.text) as { sessions: { id: string }[] };
    expect(listedByAgent.sessions.map((s) => s.id)).toContain(body.session.id);
    await client.close();
  });

  it('lists by scope', async () => {
    gateway.owners.addAgentSession('u1', { title: 'Gone', archived: true });
    const archived = (await (await api('/api/v1/sessions?scope=archived', { token: userToken })).json()) as { sessions: { title: string }[] };
    expect(archived.sessions.map((s) => s.title)).toEqual(['Gone']);
    const bad = await api('/api/v1/sessions?scope=recent', { token: userToken });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  });

  it('answers a page of 100 at most, with the total and the next page, and asks the session service for that page only', async () => {
    const token = gateway.owners.addUser('u-pages');
    for (let n = 0; n < 205; n++) gateway.owners.addAgentSession('u-pages', { title: `Worker ${n}` });
    type Page = { sessions: { title: string }[]; sessionsTotal: number; page: number; pages: number; nextPage?: number };
    const first = (await (await api('/api/v1/sessions', { token })).json()) as Page;
    expect(gateway.owners.calls.at(-1)).toMatchObject({ method: 'listSessions', request: { userId: 'u-pages', limit: 100, offset: 0 } });
    expect(first).toMatchObject({ sessionsTotal: 205, page: 1, pages: 3, nextPage: 2 });
    expect(first.sessions).toHaveLength(100);

    const last = (await (await api('/api/v1/sessions?page=3', { token })).json()) as Page;
    expect(last).toMatchObject({ sessionsTotal: 205, page: 3, pages: 3 });
    expect(last).not.toHaveProperty('nextPage');
    expect(last.sessions.map((s) => s.title)).toEqual(['Worker 200', 'Worker 201', 'Worker 202', 'Worker 203', 'Worker 204']);

    const small = (await (await api('/api/v1/sessions?page=2&limit=10', { token })).json()) as Page;
    expect(gateway.owners.calls.at(-1)).toMatchObject({ method: 'listSessions', request: { limit: 10, offset: 10 } });
    expect(small).toMatchObject({ sessionsTotal: 205, page: 2, pages: 21, nextPage: 3 });
    expect(small.sessions.map((s) => s.title).at(0)).toBe('Worker 10');

    const past = (await (await api('/api/v1/sessions?page=4', { token })).json()) as Page;
    expect(past).toEqual({ sessions: [], sessionsTotal: 205, page: 4, pages: 3 });
  });

  it.each([
    ['page=0', 'page must be a whole number from 1 to 100000'],
    ['page=100001', 'page must be a whole number from 1 to 100000'],
    ['page=two', 'page must be a whole number from 1 to 100000'],
    ['limit=0', 'limit must be a whole number from 1 to 100'],
    ['limit=101', 'limit must be a whole number from 1 to 100'],
    ['limit=1.5', 'limit must be a whole number from 1 to 100'],
  ])('refuses %s with 400 and asks the session service nothing', async (query, error) => {
    const before = gateway.owners.calls.length;
    const response = await api(`/api/v1/sessions?${query}`, { token: userToken });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'REMOTE_RELAY_INVALID_INPUT', error });
    expect(gateway.owners.calls.slice(before).some((call) => call.method === 'listSessions')).toBe(false);
  });

  it.each([
    ['no body', undefined],
    ['external missing', { title: 'x' }],
    ['external false', { external: false }],
    ['a title that is not a string', { external: true, title: 5 }],
    ['a list', [{ external: true }]],
  ])('answers 400 { code, error } for %s', async (_label, body) => {
    const response = await api('/api/v1/sessions', { method: 'POST', token: userToken, body });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { code: string; error: string };
    expect(answer.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(answer.error.length).toBeGreaterThan(0);
  });

  it("passes the session service's refusal through", async () => {
    const response = await api('/api/v1/sessions', { method: 'POST', token: userToken, body: { external: true, title: '   ' } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'REMOTE_RELAY_INVALID_INPUT', error: 'title must not be blank' });
  });

  it('hides a fault of the session service', async () => {
    gateway.owners.failing.add('listSessions');
    try {
      const response = await api('/api/v1/sessions', { token: userToken });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ code: 'REMOTE_RELAY_INTERNAL' });
      expect(text).not.toContain('hunter2');
    } finally {
      gateway.owners.failing.clear();
    }
  });

  it('answers 401 without a valid user token, 403 for a session token', async () => {
    for (const token of [undefined, 'ru_unknown']) {
      const response = await api('/api/v1/sessions', { token });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    const agent = gateway.owners.addAgentSession('u1');
    expect((await api('/api/v1/sessions', { token: agent.token })).status).toBe(403);
  });

  it('says what this relay is', async () => {
    const response = await api('/api/v1/relay', { token: userToken });
    expect(await response.json()).toEqual({
      name: 'desk',
      version: '0.9.19',
      urls: { base: 'https://desk.example.com', api: 'https://desk.example.com/api/v1', mcp: 'https://desk.example.com/mcp' },
    });
  });
});

describe('/api/v1 hosted sessions', () => {
  afterEach(() => gateway.owners.reset());

  async function created(body: Record<string, unknown> = { title: 'Review', text: 'reply hello' }) {
    const response = await api('/api/v1/sessions', { method: 'POST', token: userToken, body });
    expect(response.status).toBe(201);
    return (await response.json()) as { session: { id: string; title: string; provider: string }; message_id: string };
  }

  it('creates a hosted session with its first prompt, as the user (no caller, no provenance)', async () => {
    const body = await created({ title: 'Review', text: 'reply hello', provider: 'script', model: 'script-1', cwd: '/home/dev/shop', mode: 'ask' });
    expect(body.session).toMatchObject({ title: 'Review', provider: 'script' });
    expect(body.message_id).toMatch(/\S+/);
    expect(gateway.owners.writes()).toEqual([
      {
        method: 'createSession',
        request: expect.objectContaining({
          userId: 'u1',
          callerSessionId: '',
          title: 'Review',
          text: 'reply hello',
          provider: 'script',
          model: 'script-1',
          cwd: '/home/dev/shop',
          mode: 'ask',
          provenance: undefined,
          dryRun: false,
        }),
      },
    ]);
  });

  it.each([
    ['no text', { title: 'x' }],
    ['an empty text', { text: '  ' }],
    ['a model that is not a string', { text: 'x', model: 5 }],
  ])('answers 400 for %s and creates nothing', async (_label, body) => {
    const response = await api('/api/v1/sessions', { method: 'POST', token: userToken, body });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(gateway.owners.writes()).toEqual([]);
  });

  it("passes the session service's refusal through with its status", async () => {
    gateway.owners.refusals.set('createSession', new AppError('REMOTE_RELAY_UNKNOWN_MODEL', 'invalid_argument', "Unknown model 'gpt-5-4'"));
    const response = await api('/api/v1/sessions', { method: 'POST', token: userToken, body: { text: 'x', model: 'gpt-5-4' } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'REMOTE_RELAY_UNKNOWN_MODEL', error: "Unknown model 'gpt-5-4'" });
  });

  it('writes a message as the user, and waits for its turn', async () => {
    const { session } = await created();
    const sent = await api(`/api/v1/sessions/${session.id}/messages`, { method: 'POST', token: userToken, body: { text: 'and again' } });
    expect(sent.status).toBe(201);
    const { message_id } = (await sent.json()) as { message_id: string };
    expect(gateway.owners.writes().at(-1)).toMatchObject({
      method: 'sendMessage',
      request: { userId: 'u1', callerSessionId: '', sessionId: session.id, text: 'and again', dryRun: false },
    });

    const waited = await api(`/api/v1/sessions/${session.id}/wait?message_id=${message_id}&wait_seconds=9999`, { token: userToken });
    expect(waited.status).toBe(200);
    expect(await waited.json()).toEqual({
      status: 'done',
      session: session.id,
      message_id,
      reply: { text: 'script-1: and again', model: 'script-1' },
      delivery: 'delivered',
      openUrl: `https://desk.example.com/sessions/${session.id}`,
      note: "wait_seconds 9999 is more than this relay's longest wait per tool call (600 s), so this call waited at most 600 s.",
    });
    expect(gateway.owners.calls.at(-1)).toMatchObject({ method: 'wait', request: { callerSessionId: '', waitSeconds: 600 } });
  });

  it('makes its wait for the turn again when the session service ends it without the result (a replica that stops, a dropped connection)', async () => {
    const { session } = await created();
    const sent = await api(`/api/v1/sessions/${session.id}/messages`, { method: 'POST', token: userToken, body: { text: 'and again' } });
    const { message_id } = (await sent.json()) as { message_id: string };
    let rounds = 0;
    gateway.owners.waitScript = async function* (request) {
      yield { progressSeconds: 0 };
      // The first round ends as a session replica that stops ends its waits: a keep-alive, then nothing.
      if (++rounds > 1) yield { result: gateway.owners.turns.get(request.messageId)! };
    };
    const waited = await api(`/api/v1/sessions/${session.id}/wait?message_id=${message_id}&wait_seconds=60`, { token: userToken });
    expect(waited.status).toBe(200);
    expect(await waited.json()).toMatchObject({ status: 'done', message_id, reply: { text: 'script-1: and again' } });
    expect(gateway.owners.calls.filter((call) => call.method === 'wait').map((call) => call.request.messageId)).toEqual([message_id, message_id]);
  });

  it('answers 400 for a message without text and a wait without message_id, and 404 for an unknown session', async () => {
    const { session } = await created();
    expect((await api(`/api/v1/sessions/${session.id}/messages`, { method: 'POST', token: userToken, body: {} })).status).toBe(400);
    expect((await api(`/api/v1/sessions/${session.id}/wait`, { token: userToken })).status).toBe(400);
    expect((await api(`/api/v1/sessions/${session.id}/wait?message_id=m&wait_seconds=-1`, { token: userToken })).status).toBe(400);
    const missing = await api('/api/v1/sessions/nope/messages', { method: 'POST', token: userToken, body: { text: 'x' } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
  });

  it('reads a session as read_session shows it', async () => {
    const { session } = await created({ title: 'Review', text: 'first' });
    const response = await api(`/api/v1/sessions/${session.id}?last=5`, { token: userToken });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      session: { id: session.id, title: 'Review' },
      messages: [{ role: 'user', text: 'first' }],
      inFlight: expect.any(String),
      pendingQuestions: [],
    });
    expect(gateway.owners.calls.at(-1)).toMatchObject({ method: 'readSession', request: { last: 5 } });
    expect((await api(`/api/v1/sessions/${session.id}?last=500`, { token: userToken })).status).toBe(400);
    expect((await api('/api/v1/sessions/nope', { token: userToken })).status).toBe(404);
  });

  it("sets a conversation's mode and mayCreateSessions", async () => {
    const { session } = await created();
    const response = await api(`/api/v1/sessions/${session.id}`, { method: 'PATCH', token: userToken, body: { mode: 'plan', may_create_sessions: true } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ session: { id: session.id, mayCreateSessions: true }, mode: 'plan', mayCreateSessions: true });
    expect(gateway.owners.writes().at(-1)).toMatchObject({
      method: 'setConversationOptions',
      request: { userId: 'u1', sessionId: session.id, mode: 'plan', mayCreateSessions: true },
    });

    const off = await api(`/api/v1/sessions/${session.id}`, { method: 'PATCH', token: userToken, body: { may_create_sessions: false } });
    expect(await off.json()).toMatchObject({ mode: 'plan', mayCreateSessions: false });
  });

  it('answers 400 for a PATCH with nothing to set, or a bad mode', async () => {
    const { session } = await created();
    expect((await api(`/api/v1/sessions/${session.id}`, { method: 'PATCH', token: userToken, body: {} })).status).toBe(400);
    const bad = await api(`/api/v1/sessions/${session.id}`, { method: 'PATCH', token: userToken, body: { mode: 'yolo' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  });

  it("takes only a user's token", async () => {
    const agent = gateway.owners.addAgentSession('u1');
    expect((await api(`/api/v1/sessions/${agent.session.id}`, { token: agent.token })).status).toBe(403);
    expect((await api(`/api/v1/sessions/${agent.session.id}/messages`, { method: 'POST', body: { text: 'x' } })).status).toBe(401);
  });
});

describe('health', () => {
  it('/healthz answers while the process is up', async () => {
    expect((await api('/healthz')).status).toBe(200);
  });

  it('/readyz says whether this gateway can take requests, not whether the owners behind it are up', async () => {
    const ready = await api('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });

    // Its owners away, a gateway stays in the Ingress: calls answer their own errors, the console still loads.
    const other = await startGateway('other');
    await other.owners.stop();
    expect((await fetch(`${other.url}/readyz`)).status).toBe(200);
    const call = await fetch(`${other.url}/api/v1/sessions`, { headers: { authorization: 'Bearer rly_u_anything' } });
    expect(call.status).toBeGreaterThanOrEqual(500);
    await other.close();
  });
});
