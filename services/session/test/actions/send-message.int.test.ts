import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateSessionRequest, SendMessageRequest } from '@relay/proto/relay/session/v1/session_service';
import { callUnary } from '@relay/rpc';
import { NOW, refusal, startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const send = (request: Partial<SendMessageRequest>) => callUnary(h.client, 'sendMessage', SendMessageRequest.fromPartial(request));

async function expectRefused(request: Partial<SendMessageRequest>, code: string): Promise<Record<string, unknown>> {
  const before = await h.dumpState();
  const error = await refusal(send(request));
  expect(error.code).toBe(code);
  expect(await h.dumpState()).toEqual(before);
  return { message: error.message, ...error.details };
}

describe('SendMessage', () => {
  it("queues a user's message: role user, no provenance, counted on the session", async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    h.clock.advance(60_000);
    const sent = await send({ userId, sessionId, text: 'reply again' });
    expect(sent.session).toMatchObject({ id: sessionId, messageCount: 2, lastActivityAt: new Date(NOW.getTime() + 60_000) });
    expect(await h.prisma.message.findUnique({ where: { id: sent.messageId } })).toMatchObject({ role: 'user', provenance: null });
    expect(await h.prisma.turn.count({ where: { sessionId, status: 'queued' } })).toBe(2);
  });

  it("queues an agent's prompt with provenance; the caller's mode goes with it and stays on the session", async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId, { title: 'Lead', mode: 'ask' });
    const targetId = await h.newSession(userId);
    const sent = await send({ userId, callerSessionId: callerId, sessionId: targetId, text: 'reply hi' });
    expect(sent.session!.mode).toBe('ask');
    expect(await h.prisma.message.findUnique({ where: { id: sent.messageId } })).toMatchObject({
      role: 'agent',
      senderSessionId: callerId,
      provenance: { originRelay: 'build-box', originSessionId: callerId, originSessionTitle: 'Lead', hops: 0 },
    });
    expect(await h.prisma.turn.findUnique({ where: { messageId: sent.messageId } })).toMatchObject({ mode: 'ask', senderSessionId: callerId });

    // A send naming another mode changes it again.
    expect((await send({ userId, callerSessionId: callerId, sessionId: targetId, text: 'reply', mode: 'plan' })).session!.mode).toBe('plan');
  });

  it('takes the hops of the turn that sends', async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId);
    const targetId = await h.newSession(userId);
    await h.prisma.turn.updateMany({
      where: { sessionId: callerId },
      data: { status: 'running', provenance: { originRelay: 'desk', originSessionId: 'x', originSessionTitle: 'X', model: 'm', hops: 1 } },
    });
    const sent = await send({ userId, callerSessionId: callerId, sessionId: targetId, text: 'reply' });
    expect((await h.prisma.message.findUnique({ where: { id: sent.messageId } }))!.provenance).toMatchObject({ originSessionId: callerId, hops: 1 });
  });

  it("keeps the chain of relays of the turn that sends, and reads it back as the turn's provenance (none on a row written before it)", async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId);
    const targetId = await h.newSession(userId);
    const chain = { originRelay: 'lab', originSessionId: 'x', originSessionTitle: 'X', model: 'm', hops: 2, viaRelays: ['desk', 'lab'] };
    await h.prisma.turn.updateMany({ where: { sessionId: callerId }, data: { status: 'running', provenance: chain } });
    expect((await callUnary(h.client, 'getConversation', { sessionId: callerId })).turnProvenance).toEqual(chain);

    const sent = await send({ userId, callerSessionId: callerId, sessionId: targetId, text: 'reply' });
    expect((await h.prisma.message.findUnique({ where: { id: sent.messageId } }))!.provenance).toMatchObject({
      originSessionId: callerId,
      hops: 2,
      viaRelays: ['desk', 'lab'],
    });

    const { viaRelays: _, ...before } = chain;
    await h.prisma.turn.updateMany({ where: { sessionId: callerId }, data: { provenance: before } });
    expect((await callUnary(h.client, 'getConversation', { sessionId: callerId })).turnProvenance).toEqual({ ...before, viaRelays: [] });
  });

  it('changes nothing on a dry run', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    const before = await h.dumpState();
    expect((await send({ userId, sessionId, text: 'reply', mode: 'plan', dryRun: true })).messageId).toBe('');
    expect(await h.dumpState()).toEqual(before);
  });

  it('switches a Claude session to the subscription and says so for the card', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId, { provider: 'claude' });
    await h.prisma.session.update({ where: { id: sessionId }, data: { provider: 'claude-api' } });
    // Claude API is not set up on this relay, so only the way back to the subscription is open.
    const sent = await send({ userId, sessionId, text: 'go on', provider: 'claude' });
    expect(sent).toMatchObject({ billingSwitch: 'subscription', session: { provider: 'claude' } });
  });
});

describe('SendMessage refusals change nothing', () => {
  it('refuses the caller itself, an unknown session, an archived one and an external one', async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId);
    const archivedId = await h.newSession(userId);
    await h.prisma.session.update({ where: { id: archivedId }, data: { archived: true } });
    const external = await callUnary(h.client, 'createExternalSession', { userId, title: 'IDE' });
    await expectRefused({ userId, callerSessionId: callerId, sessionId: callerId, text: 'x' }, 'REMOTE_RELAY_FORBIDDEN');
    await expectRefused({ userId, callerSessionId: callerId, sessionId: 'nope', text: 'x' }, 'REMOTE_RELAY_NOT_FOUND');
    await expectRefused({ userId, callerSessionId: callerId, sessionId: archivedId, text: 'x' }, 'REMOTE_RELAY_ARCHIVED');
    const unsupported = await expectRefused({ userId, sessionId: external.session!.id, text: 'x' }, 'REMOTE_RELAY_UNSUPPORTED');
    expect(unsupported['message']).toContain("an external session's agent runs outside this relay");
  });

  it('refuses an unknown model with suggestions, a bad mode, an empty text', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId, { provider: 'claude' });
    const details = await expectRefused({ userId, sessionId, text: 'x', model: 'claude-opus-5.5' }, 'REMOTE_RELAY_UNKNOWN_MODEL');
    expect(details['suggestions']).toEqual(['claude-opus-5-5']);
    expect(details['message']).toMatch(/Nothing was sent\.$/);
    await expectRefused({ userId, sessionId, text: 'x', mode: 'auto' }, 'REMOTE_RELAY_INVALID_INPUT');
    await expectRefused({ userId, sessionId, text: '' }, 'REMOTE_RELAY_INVALID_INPUT');
  });

  it('refuses a billing switch to a billing not set up, with remoteCode, and sends nothing', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId, { provider: 'claude' });
    const details = await expectRefused({ userId, sessionId, text: 'x', provider: 'claude-api' }, 'REMOTE_RELAY_PROVIDER_UNAVAILABLE');
    expect(details['remoteCode']).toBe('CLAUDE_API_NOT_CONFIGURED');
    await expectRefused({ userId, sessionId: await h.newSession(userId), text: 'x', provider: 'claude' }, 'REMOTE_RELAY_INVALID_INPUT');
  });

  it('refuses waking a fifth started session while four are at work', async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId);
    const started: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const created = await callUnary(
        h.client,
        'createSession',
        CreateSessionRequest.fromPartial({ userId, callerSessionId: leadId, text: `reply ${i}` }),
      ).catch(() => undefined);
      if (created) started.push(created.session!.id);
    }
    expect(started).toHaveLength(4);
    const idle = started[0]!;
    await h.prisma.turn.updateMany({ where: { sessionId: idle }, data: { status: 'done' } });
    const fifth = (await callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial({ userId, callerSessionId: leadId, text: 'reply 5' }))).session!
      .id;
    // idle is not at work; fifth is. Waking idle would make five.
    expect(fifth).not.toBe(idle);
    await expectRefused({ userId, callerSessionId: leadId, sessionId: idle, text: 'again' }, 'REMOTE_RELAY_ACTIVE_LIMIT');
    // A session already at work takes more.
    await send({ userId, callerSessionId: leadId, sessionId: fifth, text: 'more' });
  });
});
