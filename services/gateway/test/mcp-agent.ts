/**
 * An agent for the integration tests: a session of the fake session service with its token, and the
 * SDK's MCP client connected to the gateway with it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Session } from '@relay/proto/relay/session/v1/session';
import { afterEach, expect } from 'vitest';
import type { TestGateway } from './start-gateway.ts';

export interface TestAgent {
  session: Session;
  client: Client;
  /** Calls relay_tool and answers the parsed result with isError. */
  call(args: Record<string, unknown>, options?: RequestOptions): Promise<{ isError: boolean; body: Record<string, any> }>;
  close(): Promise<void>;
}

/** A new agent session of user `userId` (u1 unless given), connected over MCP. */
export async function connectAgent(gateway: TestGateway, fields: Partial<Session> = {}, userId = 'u1'): Promise<TestAgent> {
  const { session, token } = gateway.owners.addAgentSession(userId, { title: 'Planner', ...fields });
  const client = new Client({ name: 'gateway-test', version: '0.0.1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return {
    session,
    client,
    async call(args, options) {
      const result = await client.callTool({ name: 'relay_tool', arguments: args }, undefined, options);
      const content = result.content as { type: string; text: string }[];
      expect(content).toHaveLength(1);
      return { isError: result.isError === true, body: JSON.parse(content[0]!.text) as Record<string, any> };
    },
    close: () => client.close(),
  };
}

/**
 * For a test file: connects agents as connectAgent does (of u1), each closed after its test, when the fake owners are
 * reset too. `gateway` answers the file's gateway, started in its beforeAll.
 */
export function agentsClosedAfterEach(gateway: () => TestGateway): (fields?: Partial<Session>) => Promise<TestAgent> {
  const agents: TestAgent[] = [];
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.close()));
    gateway().owners.reset();
  });
  return async (fields = {}) => {
    const agent = await connectAgent(gateway(), fields);
    agents.push(agent);
    return agent;
  };
}
