// The walking skeleton end to end: a real MCP client → gateway → gRPC → session service → PostgreSQL, and a session
// event through the outbox and JetStream into the subscription service.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RelayClient } from '../harness/relay.ts';
import { sharedRelay } from '../harness/shared-relay.ts';

let relay: RelayClient;
let agent: Client;
let caller: { id: string; token: string };

async function relayTool(client: Client, args: unknown, name = 'relay_tool') {
  const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
  const content = result.content as { type: string; text: string }[];
  return { isError: result.isError === true, body: JSON.parse(content[0]!.text) as Record<string, any> };
}

beforeAll(async () => {
  relay = await sharedRelay();
  caller = await relay.createExternalSession('Walking skeleton');
  agent = await relay.connectAgent(caller.token);
});

afterAll(async () => {
  await agent?.close();
  await relay?.stop();
});

describe('relay_tool over MCP', () => {
  it('lists only relay_tool', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['relay_tool']);
  });

  it('list_relays answers with this relay first, self, its version and limits', async () => {
    const { isError, body } = await relayTool(agent, { action: 'list_relays' });
    expect(isError).toBe(false);
    expect(body).toMatchObject({
      ok: true,
      summary: 'list_relays: 1 relay, 1 unlocked',
      self: { name: 'desk' },
      relays: [{ name: 'desk', self: true, online: true, version: '0.9.19', permission: 'full', unlocked: true }],
      limits: { maxWaitSeconds: 600, maxActiveSessions: 4 },
    });
  });

  it('runs a call made under the old name remote_relay', async () => {
    const { body } = await relayTool(agent, { action: 'list_relays' }, 'remote_relay');
    expect(body).toMatchObject({ ok: true, self: { name: 'desk' } });
  });

  it('list_sessions reads the sessions from the session service', async () => {
    const other = await relay.createExternalSession('Second');
    const { body } = await relayTool(agent, { action: 'list_sessions', relay: 'this' });
    expect(body.ok).toBe(true);
    const ids = (body.sessions as { id: string }[]).map((session) => session.id);
    expect(ids).toEqual(expect.arrayContaining([caller.id, other.id]));
    expect(body.sessions.find((s: { id: string }) => s.id === other.id)).toMatchObject({ title: 'Second', state: 'idle' });
  });

  it.each([[{ action: 'fly_to_the_moon' }], [{}], [{ action: 'list_sessions', scope: 42 }]])(
    'refuses %j with REMOTE_RELAY_INVALID_INPUT and keeps answering',
    async (args) => {
      const { isError, body } = await relayTool(agent, args);
      expect(isError).toBe(true);
      expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
      expect(body.error).toEqual(expect.any(String));
      expect((await relayTool(agent, { action: 'list_relays' })).body.ok).toBe(true);
    },
  );

  it('refuses a relay it does not know', async () => {
    const { body } = await relayTool(agent, { action: 'list_sessions', relay: 'nowhere' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_RELAY' });
  });

  it('answers 401 without a valid token', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
    };
    for (const authorization of [undefined, 'Bearer rly_s_not-a-token']) {
      const response = await fetch(relay.mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
    }
  });
});

describe('session events through the outbox', () => {
  it('a created session reaches the subscription service', async () => {
    const created = await relay.createExternalSession('Seen by the subscription service');
    const db = new pg.Client({ connectionString: relay.databaseUrls.subscription });
    await db.connect();
    try {
      const deadline = Date.now() + 20_000;
      let rows: { title: string }[] = [];
      while (Date.now() < deadline && rows.length === 0) {
        rows = (await db.query('SELECT title FROM session_activity WHERE session_id = $1', [created.id])).rows;
        if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(rows).toEqual([{ title: 'Seen by the subscription service' }]);
    } finally {
      await db.end();
    }
  });
});
