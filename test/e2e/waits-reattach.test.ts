// Issue 38 end to end: waits at a person's pace outlive every connection. The relay's gRPC servers recycle their
// connections every ~2 s here (GRPC_MAX_CONNECTION_AGE_MS, with a 0.5 s grace that closes a recycled connection
// under the calls still on it), where production waits 5 minutes: a hosted ask, a command card, a hosted agent's
// first-session card and an external client's call held for its first-session Allow all wait across several
// recycles and a kill -9 of the question service, then are decided; each takes effect once. An external call's
// card survives a kill -9 of the session service too. A client that bears a call only so long (the MCP SDK
// client's own 60 s timeout) gets the card's handle in time and its result on its next call after an Allow 3 relay
// minutes later. Past Max turn duration a waiting turn's card is withdrawn and the turn ends with that reason.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finish, scriptSession } from '../harness/script-turns.ts';
import { runRelayCli } from '../harness/relay-cli.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

/** The connections' age here: a wait of RECYCLES_WAITED × this spans that many recycles of every connection. */
const CONNECTION_AGE_MS = 2_000;
const RECYCLES_WAITED = 4;

let relay: Relay;
let folder: string;
const agents: Client[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-waits-'));
  relay = await startRelay({
    name: 'waits',
    env: {
      RELAY_AGENT_SESSIONS: 'on',
      // A virtual clock at the real rate: Max turn duration and the 3 minutes before an Allow are skipped (jumpTo).
      RELAY_CLOCK: new Date().toISOString(),
      GRPC_MAX_CONNECTION_AGE_MS: String(CONNECTION_AGE_MS),
      GRPC_MAX_CONNECTION_AGE_GRACE_MS: '500',
      CARD_PROGRESS_INTERVAL_MS: '500',
    },
  });
});

afterAll(async () => {
  for (const agent of agents) await agent.close().catch(() => undefined);
  await relay?.stop();
  await rm(folder, { recursive: true, force: true });
});

async function externalAgent(title: string): Promise<{ id: string; agent: Client }> {
  const session = await relay.createExternalSession(title);
  const agent = await relay.connectAgent(session.token);
  agents.push(agent);
  return { id: session.id, agent };
}

/** A relay_tool call's result (JSON), the client giving up after `timeoutMs` as the MCP SDK client does. */
async function call(agent: Client, args: Record<string, unknown>, options: { timeoutMs?: number; answerWithinSeconds?: number } = {}): Promise<any> {
  const params = {
    name: 'relay_tool',
    arguments: args,
    ...(options.answerWithinSeconds === undefined ? {} : { _meta: { 'relay/answerWithinSeconds': options.answerWithinSeconds } }),
  };
  const result = await agent.callTool(params, undefined, { timeout: options.timeoutMs ?? 120_000 });
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

const pendingCards = async (sessionId: string): Promise<any[]> => (await relay.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`)).body.cards;
const allCards = async (sessionId: string): Promise<any[]> => (await relay.api('GET', `/api/v1/cards?session=${sessionId}`)).body.cards;
const onePendingCard = (sessionId: string) => until(`a pending card in ${sessionId}`, async () => (await pendingCards(sessionId))[0]);
const decide = async (cardId: string, body: Record<string, unknown>) => {
  const decided = await relay.api('POST', `/api/v1/cards/${cardId}`, body);
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
};
const sessionsTitled = async (title: string): Promise<any[]> =>
  ((await relay.api('GET', '/api/v1/sessions')).body.sessions as any[]).filter((s) => s.title === title);
const messagesOf = async (sessionId: string): Promise<any[]> => (await relay.api('GET', `/api/v1/sessions/${sessionId}`)).body.messages;

/** Waits out `recycles` connection recycles (plus the jitter of ±10 %): nothing asserts on the time, only on effects. */
const acrossRecycles = (recycles: number) => sleep(recycles * CONNECTION_AGE_MS * 1.1 + 500);

describe('cards wait across connection recycles and a kill -9 of the question service', () => {
  it('an ask, a command card, a hosted first-session card and an external call each take effect once when decided', async () => {
    const ask = await scriptSession(relay, 'Asker', 'ask_user Go on? | Yes | No\nreply got {{answer}}');
    const commandSession = await relay.api('POST', '/api/v1/sessions', {
      provider: 'script',
      title: 'Runner',
      text: 'task echo ran >> ran.txt\nreply started',
      cwd: folder,
    });
    expect(commandSession.status, JSON.stringify(commandSession.body)).toBe(201);
    const command = { id: commandSession.body.session.id as string, messageId: commandSession.body.message_id as string };
    const parent = await scriptSession(
      relay,
      'Parent',
      'relay_tool {"action":"create_session","relay":"this","provider":"script","title":"Child","text":"reply child"}\nreply child {{result.status}}',
    );
    const external = await externalAgent('Editor');
    const externalCall = call(external.agent, {
      action: 'create_session',
      relay: 'this',
      provider: 'script',
      title: 'External child',
      text: 'reply ext',
      wait_seconds: 30,
    });

    const cards = await Promise.all([ask.id, command.id, parent.id, external.id].map(onePendingCard));
    await acrossRecycles(RECYCLES_WAITED);
    await relay.services.question.kill();
    relay.services.question.start();
    await relay.waitReady('question');
    await acrossRecycles(1);
    // Every wait is still there: no card withdrawn, no turn ended, the external call still held as its session's turn.
    for (const [index, sessionId] of [ask.id, command.id, parent.id, external.id].entries())
      expect((await pendingCards(sessionId)).map((c) => c.id)).toEqual([cards[index].id]);
    expect((await sessionsTitled('Editor'))[0]?.state).toBe('running_turn');

    await decide(cards[0].id, { decision: 'answer', choices: ['Yes'] });
    await decide(cards[1].id, { decision: 'allow' });
    await decide(cards[2].id, { decision: 'allow' });
    await decide(cards[3].id, { decision: 'allow' });

    expect(await finish(relay, ask.id, ask.messageId)).toMatchObject({ status: 'done', reply: { text: 'got Yes' } });
    expect(await finish(relay, command.id, command.messageId)).toMatchObject({ status: 'done', reply: { text: 'started' } });
    expect(await finish(relay, parent.id, parent.messageId)).toMatchObject({ status: 'done', reply: { text: 'child done' } });
    const externalResult = await externalCall;
    expect(externalResult, JSON.stringify(externalResult)).toMatchObject({ ok: true, status: 'done', reply: { text: 'ext' } });

    // Once each: one reply per turn, one command run, one child session each, one card each.
    const ran = await until('the command ran', async () => (await readFile(join(folder, 'ran.txt'), 'utf8').catch(() => '')) || undefined);
    await relay.settled();
    expect(ran).toBe('ran\n');
    for (const sessionId of [ask.id, command.id, parent.id]) expect((await messagesOf(sessionId)).filter((m) => m.role === 'assistant')).toHaveLength(1);
    expect(await sessionsTitled('Child')).toHaveLength(1);
    expect(await sessionsTitled('External child')).toHaveLength(1);
    for (const sessionId of [ask.id, command.id, parent.id, external.id]) expect(await allCards(sessionId)).toHaveLength(1);
  });
});

describe('an external call survives a kill -9 of the session service', () => {
  it('its first-watch card is Allowed after the restart: one subscription, one card', async () => {
    const watched = await scriptSession(relay, 'Watched', 'reply here');
    await finish(relay, watched.id, watched.messageId);
    const external = await externalAgent('Watcher');
    const subscribing = call(external.agent, { action: 'subscribe', sessions: [watched.id], events: ['turn_end'] });
    const card = await onePendingCard(external.id);
    await acrossRecycles(2);
    await relay.services.session.kill();
    relay.services.session.start();
    await relay.waitReady('session');
    await acrossRecycles(1);
    await decide(card.id, { decision: 'allow' });
    const result = await subscribing;
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
    const listed = await call(external.agent, { action: 'list_subscriptions' });
    expect(listed.subscriptions).toHaveLength(1);
    expect(await allCards(external.id)).toHaveLength(1);
  });
});

describe('a client that bears a call for 60 s', () => {
  it('gets the pending card as its answer in time, and after an Allow 3 relay minutes later its result on the next call', async () => {
    const external = await externalAgent('Capped client');
    const args = { action: 'create_session', relay: 'this', provider: 'script', title: 'Late child', text: 'reply late', wait_seconds: 30 };
    // The MCP SDK client's own timeout is the cap; the client asks for an answer within 5 s (the relay's default is 50 s).
    const first = await call(external.agent, args, { timeoutMs: 60_000, answerWithinSeconds: 5 });
    expect(first, JSON.stringify(first)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION', cardStatus: 'pending' });
    const [card] = await pendingCards(external.id);
    expect(card.id).toBe(first.card);

    await relay.jumpTo(new Date(relay.now().getTime() + 3 * 60_000));
    await decide(card.id, { decision: 'allow' });
    const next = await call(external.agent, args, { timeoutMs: 60_000 });
    expect(next, JSON.stringify(next)).toMatchObject({ ok: true, status: 'done', reply: { text: 'late' } });
    expect(await sessionsTitled('Late child')).toHaveLength(1);
    expect(await allCards(external.id)).toHaveLength(1);
  });
});

describe('past Max turn duration', () => {
  it('the waiting turn ends with that reason, its card withdrawn; the person sees why in read_session, relay session show and the console', async () => {
    expect((await relay.api('PATCH', '/api/v1/settings', { max_turn_minutes: 2 })).status).toBe(200);
    try {
      const ask = await scriptSession(relay, 'Too long', 'ask_user Still there? | Yes\nreply {{answer}}');
      const card = await onePendingCard(ask.id);
      await acrossRecycles(1);
      await relay.jumpTo(new Date(relay.now().getTime() + 3 * 60_000));
      const ended = await finish(relay, ask.id, ask.messageId);
      expect(ended).toMatchObject({ status: 'error', error: "the turn ran longer than this relay's Max turn duration (2 minutes)" });
      await until('the card withdrawn', async () => ((await allCards(ask.id)).find((c) => c.id === card.id)?.status === 'cancelled' ? true : undefined));

      const why =
        "This turn failed: the turn ran longer than this relay's Max turn duration (2 minutes). Send the message again to go on; an admin can raise Max turn duration (Settings → Relays).";
      // The console's conversation reads the user API's session.
      expect((await messagesOf(ask.id)).map((m) => [m.role, m.text])).toEqual([
        ['user', 'ask_user Still there? | Yes\nreply {{answer}}'],
        ['error', why],
      ]);
      const reader = await externalAgent('Reader');
      const read = await call(reader.agent, { action: 'read_session', relay: 'this', session: ask.id });
      expect(read.messages.at(-1)).toMatchObject({ role: 'error', text: why });
      const shown = await runRelayCli(relay, relay.userToken, 'session', 'show', ask.id);
      expect(shown.stdout).toContain('turn failed ·');
      expect(shown.stdout).toContain(`  ${why}`);
    } finally {
      await relay.api('PATCH', '/api/v1/settings', { max_turn_minutes: 60 });
    }
  });
});
