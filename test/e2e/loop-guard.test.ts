// The loop guard end to end (decisions.md, Across relays): a conversation may send 30 prompts to other agents
// before the user is asked on a card; Deny (or no running turn) refuses with REMOTE_RELAY_LOOP_GUARD and nothing
// runs away; Allow grants 30 more; a user's message resets the count; asks are not counted, and answering one does
// not reset it. Two `script` sessions, real agents, call relay_tool through the gateway's MCP endpoint; the test
// plays the user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayClient } from '../harness/relay.ts';
import { sharedRelay } from '../harness/shared-relay.ts';
import { callTool as call, RelayUser, toolStep as tool } from '../harness/relay-user.ts';

let relay: RelayClient;
let user: RelayUser;

/** The prompts other agents sent a session (rows with provenance, not the user's). */
const agentPrompts = (read: any) => read.messages.filter((m: { role: string }) => m.role === 'agent');

/** The next pending card in a session other than `previousId`, once it shows. */
async function nextCard(sessionId: string, previousId: string): Promise<any> {
  for (;;) {
    const card = await user.pendingCard(sessionId);
    if (card.id !== previousId) return card;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A script session that has answered its first prompt and is idle. */
async function idleScript(title: string) {
  const session = await user.scriptSession(title, 'reply ready');
  await user.finish(session.id, session.messageId);
  return session;
}

beforeAll(async () => {
  relay = await sharedRelay();
  user = new RelayUser(relay, relay.userToken);
});

afterAll(async () => {
  await user?.close();
  await relay?.stop();
});

describe('the loop guard', () => {
  it('stops two script sessions prompting each other at 30 with a card; Deny ends it and nothing runs away', async () => {
    const a = await idleScript('Ping');
    const b = await idleScript('Pong');

    // Each prompt A sends makes B prompt A back.
    const back = tool({ action: 'send', relay: 'this', session: a.id, text: 'reply ping', wait_seconds: 0 });
    const sends = Array.from({ length: 31 }, () => tool({ action: 'send', relay: 'this', session: b.id, text: back, wait_seconds: 0 }));
    const messageId = await user.say(a.id, [...sends, 'reply {{result.code}}'].join('\n'));

    const card = await user.pendingCard(a.id);
    expect(card.kind).toBe('approval');
    expect(`${card.title} ${card.lines.join(' ')}`).toContain('30 prompts');
    expect((await user.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    expect((await user.finish(a.id, messageId)).reply.text).toBe('REMOTE_RELAY_LOOP_GUARD');

    // Everything settles: B got exactly 30 prompts from A, A got B's 30 answers, and nothing is left running.
    const readB = await user.settled(b.id);
    const readA = await user.settled(a.id);
    expect(agentPrompts(readB)).toHaveLength(30);
    expect(agentPrompts(readA)).toHaveLength(30);
    expect((await user.api('GET', `/api/v1/sessions/${b.id}?last=100`)).body.messages).toHaveLength(readB.messages.length);
    expect((await user.api('GET', `/api/v1/cards?session=${a.id}&pending=1`)).body.cards).toEqual([]);
    expect((await user.api('GET', `/api/v1/cards?session=${b.id}&pending=1`)).body.cards).toEqual([]);
  });

  it('Allow grants 30 more: the 31st prompt goes, and the 61st asks again', async () => {
    const a = await idleScript('Sender');
    const b = await idleScript('Receiver');
    const sends = Array.from({ length: 61 }, (_, i) => tool({ action: 'send', relay: 'this', session: b.id, text: `reply got ${i + 1}`, wait_seconds: 0 }));
    const messageId = await user.say(a.id, [...sends, 'reply {{result.code}}'].join('\n'));

    const first = await user.pendingCard(a.id);
    expect(first.lines.join(' ')).toContain('sent 30 prompts');
    expect((await user.api('POST', `/api/v1/cards/${first.id}`, { decision: 'allow' })).status).toBe(200);
    const second = await nextCard(a.id, first.id);
    expect(second.lines.join(' ')).toContain('sent 60 prompts');
    expect((await user.api('POST', `/api/v1/cards/${second.id}`, { decision: 'deny' })).status).toBe(200);
    expect((await user.finish(a.id, messageId)).reply.text).toBe('REMOTE_RELAY_LOOP_GUARD');
    // B holds its first prompt and reply, then 60 prompts from A and its 60 replies: the 61st never came.
    const readB = await user.settled(b.id, 100);
    expect(readB.session.messageCount).toBe(2 + 60 * 2);
    const prompts = agentPrompts(readB).map((m: { text: string }) => m.text);
    expect(prompts.at(-1)).toMatch(/reply got 60$/);
    expect(prompts.some((text: string) => text.endsWith('reply got 61'))).toBe(false);
  });

  it("asks are not counted, answering one does not reset the count, and the user's next message does", async () => {
    const a = await idleScript('Asker and sender');
    const b = await idleScript('Its receiver');
    const thirty = Array.from({ length: 30 }, () => tool({ action: 'send', relay: 'this', session: b.id, text: 'reply ok', wait_seconds: 0 }));
    // After the 30th prompt an ask on B's behalf still goes without a card: the loop guard does not count asks.
    const first = await user.say(a.id, [...thirty, tool({ action: 'ask', session: b.id, question: 'Keep going?' }), 'reply {{result.question_id}}'].join('\n'));
    const questionId = (await user.finish(a.id, first)).reply.text;
    expect(questionId).toMatch(/^ask_/);
    expect((await user.api('GET', `/api/v1/cards?session=${a.id}`)).body.cards).toEqual([]);

    // The user answers the ask; question_answered reaches A (as an event row, not a user's message).
    expect((await user.api('POST', `/api/v1/asks/${questionId}`, { decision: 'answer', answer: 'yes' })).status).toBe(200);
    await expect
      .poll(async () => (await user.settled(a.id)).messages.filter((m: { role: string }) => m.role === 'event').length, { timeout: 30_000, interval: 200 })
      .toBe(1);

    // Another agent prompts A to send once more: the count still stands at 30, so A must ask; Deny refuses it.
    const prompter = await user.externalAgent('Prompter');
    const once = `${tool({ action: 'send', relay: 'this', session: b.id, text: 'reply once more', wait_seconds: 0 })}\nreply {{result.ok}} {{result.code}}`;
    const sent = await call(prompter, { action: 'send', relay: 'this', session: a.id, text: once, wait_seconds: 0 });
    expect(sent).toMatchObject({ ok: true });
    const card = await user.pendingCard(a.id);
    expect(card.lines.join(' ')).toContain('sent 30 prompts');
    expect((await user.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    expect((await user.finish(a.id, sent.message_id)).reply.text).toMatch(/^false REMOTE_RELAY_LOOP_GUARD/);

    // The user writes in A: the count starts again, and the same prompt goes without a card.
    const afterUser = await user.say(a.id, once);
    expect((await user.finish(a.id, afterUser)).reply.text).toMatch(/^true/);
    expect((await user.api('GET', `/api/v1/cards?session=${a.id}&pending=1`)).body.cards).toEqual([]);
    expect(agentPrompts(await user.settled(b.id))).toHaveLength(31);
  });
});
