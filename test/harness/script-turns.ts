/**
 * Sessions' turns through the user API, as the end-to-end suites drive them: create one (a `script` session, or any
 * provider's), wait for its turn, decide the cards it raises; and relay_tool called as a `script` session's agent.
 */
import { expect } from 'vitest';
import type { RelayClient } from './relay.ts';
import { until } from './until.ts';

const STILL_GOING = ['queued', 'running', 'waiting_for_answer'];

/** Creates a session over the user API (`body` as POST /api/v1/sessions takes it, its first message's text included). */
export async function createSession(relay: RelayClient, body: Record<string, unknown>): Promise<{ id: string; messageId: string }> {
  const created = await relay.api('POST', '/api/v1/sessions', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.session.id, messageId: created.body.message_id };
}

/** Starts a `script` session (its agent calls relay_tool through the gateway's MCP endpoint) with its first message. */
export function scriptSession(relay: RelayClient, title: string, text: string): Promise<{ id: string; messageId: string }> {
  return createSession(relay, { provider: 'script', title, text });
}

/** Waits until the turn of `messageId` has finished; its result (status, reply …). */
export async function finish(relay: RelayClient, sessionId: string, messageId: string): Promise<any> {
  for (;;) {
    const result = await relay.api('GET', `/api/v1/sessions/${sessionId}/wait?message_id=${messageId}&wait_seconds=120`);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (!STILL_GOING.includes(result.body.status)) return result.body;
  }
}

/** relay_tool as a `script` session's agent calls it (through the gateway's MCP endpoint): the call's result. */
export async function relayToolResult(relay: RelayClient, call: Record<string, unknown>, title = 'Tool'): Promise<any> {
  const { id, messageId } = await scriptSession(relay, title, `relay_tool ${JSON.stringify(call)}`);
  const turn = await finish(relay, id, messageId);
  expect(turn.status, JSON.stringify(turn)).toBe('done');
  return JSON.parse(turn.reply.text);
}

/** The first pending card of a session, once it is raised. */
export function pendingCard(relay: RelayClient, sessionId: string): Promise<any> {
  return until(`a pending card in ${sessionId}`, async () => (await relay.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`)).body.cards?.[0]);
}

/** Waits for the first pending card of a session and decides it as the user; the card. */
export async function decideCard(relay: RelayClient, sessionId: string, decision: 'allow' | 'deny'): Promise<any> {
  const card = await pendingCard(relay, sessionId);
  const decided = await relay.api('POST', `/api/v1/cards/${card.id}`, { decision });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  return card;
}

/** Allows the first pending card of a session (a first watch asks the user). */
export async function allowCard(relay: RelayClient, sessionId: string): Promise<void> {
  await decideCard(relay, sessionId, 'allow');
}

/**
 * Waits for a script turn to end, allowing on the owner's side every card the session raises meanwhile: a `task`
 * step runs its command only on the owner's Allow.
 */
export async function finishAllowingCommands(relay: RelayClient, sessionId: string, messageId: string): Promise<any> {
  for (;;) {
    const { body } = await relay.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`);
    // A command's card is an approval card: only the owner decides it, here through the user API.
    for (const card of body.cards ?? []) await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' });
    const result = await relay.api('GET', `/api/v1/sessions/${sessionId}/wait?message_id=${messageId}&wait_seconds=1`);
    if (result.status !== 200) throw new Error(`wait answered ${result.status}: ${JSON.stringify(result.body)}`);
    if (!STILL_GOING.includes(result.body.status)) return result.body;
  }
}
