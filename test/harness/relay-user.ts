/**
 * One user of a relay (startRelay or sharedRelay), as the end-to-end tests play them: the user API with that user's own
 * token, and agents (real MCP clients with their sessions' tokens) calling relay_tool through the gateway.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callUserApi, type RelayClient } from './relay.ts';

/** An external session of the user and its agent's MCP client. */
export interface Agent {
  id: string;
  client: Client;
}

/** Turn statuses a wait goes on from. */
const UNFINISHED = ['queued', 'running', 'waiting_for_answer'];

export class RelayUser {
  readonly #agents: Client[] = [];

  constructor(
    readonly relay: RelayClient,
    readonly token: string,
  ) {}

  /** The user API (`/api/v1…`) with this user's token: the status and the parsed body. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    return callUserApi(this.relay.gatewayUrl, this.token, method, path, body);
  }

  /** A new external session of this user with its agent connected over MCP. */
  async externalAgent(title: string): Promise<Agent> {
    const created = await this.api('POST', '/api/v1/sessions', { external: true, title });
    if (created.status !== 201) throw new Error(`POST /api/v1/sessions answered ${created.status}: ${JSON.stringify(created.body)}`);
    const client = await this.relay.connectAgent(created.body.token);
    this.#agents.push(client);
    return { id: created.body.session.id, client };
  }

  /** A `script` session of this user (a real agent whose prompt is its script) and its first prompt's message id. */
  async scriptSession(title: string, text: string, options: { mode?: string } = {}): Promise<{ id: string; messageId: string }> {
    const created = await this.api('POST', '/api/v1/sessions', { provider: 'script', title, text, ...options });
    if (created.status !== 201) throw new Error(`POST /api/v1/sessions answered ${created.status}: ${JSON.stringify(created.body)}`);
    return { id: created.body.session.id, messageId: created.body.message_id };
  }

  /** Writes into a conversation as the user; the message id. */
  async say(sessionId: string, text: string): Promise<string> {
    const sent = await this.api('POST', `/api/v1/sessions/${sessionId}/messages`, { text });
    if (sent.status !== 201) throw new Error(`POST messages answered ${sent.status}: ${JSON.stringify(sent.body)}`);
    return sent.body.message_id;
  }

  /** The result of the turn a message started, once it has ended. */
  async finish(sessionId: string, messageId: string): Promise<any> {
    for (;;) {
      const result = await this.api('GET', `/api/v1/sessions/${sessionId}/wait?message_id=${messageId}&wait_seconds=120`);
      if (result.status !== 200) throw new Error(`wait answered ${result.status}: ${JSON.stringify(result.body)}`);
      if (!UNFINISHED.includes(result.body.status)) return result.body;
    }
  }

  /** The first pending card in a session, once one shows. */
  async pendingCard(sessionId: string): Promise<any> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const { body } = await this.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`);
      if (body.cards[0]) return body.cards[0];
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no card showed in ${sessionId}`);
  }

  /** The session once nothing runs there (no turn queued or running). */
  async settled(sessionId: string, last = 100): Promise<any> {
    for (;;) {
      const { body } = await this.api('GET', `/api/v1/sessions/${sessionId}?last=${last}`);
      if (body.session.state === 'idle') return body;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Closes the MCP clients of this user's agents. */
  async close(): Promise<void> {
    for (const client of this.#agents) await client.close().catch(() => undefined);
  }
}

/** Calls relay_tool as `agent`; the result's JSON. */
export async function callTool(agent: Agent, args: Record<string, unknown>): Promise<any> {
  const result = await agent.client.callTool({ name: 'relay_tool', arguments: args });
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

/** A script step calling relay_tool with `args`. */
export function toolStep(args: Record<string, unknown>): string {
  return `relay_tool ${JSON.stringify(args)}`;
}
