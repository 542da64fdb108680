import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const response = await api('/api/v1/sessions', { method: 'POST', token: userToken, body: { external: true, title: 'x'.repeat(201) } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'REMOTE_RELAY_INVALID_INPUT', error: 'title is longer than 200 characters' });
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

describe('health', () => {
  it('/healthz answers while the process is up', async () => {
    expect((await api('/healthz')).status).toBe(200);
  });

  it('/readyz is ready while both owners serve, and not once one stops', async () => {
    const ready = await api('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', services: { session: 'SERVING', pairing: 'SERVING' } });

    const other = await startGateway('other');
    await other.owners.stop();
    const notReady = await fetch(`${other.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ status: 'not_ready', services: { session: 'NOT_SERVING', pairing: 'NOT_SERVING' } });
    await other.close();
  });
});
