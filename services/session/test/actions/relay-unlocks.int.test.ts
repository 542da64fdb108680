// Paired relays unlocked per conversation (spec, Locked and unlocked) and prompts from another relay's agents
// (decisions.md, Across relays), against the real session service over gRPC and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateSessionRequest, SendMessageRequest, UpdateSessionRequest } from '@relay/proto/relay/session/v1/session_service';
import { callUnary } from '@relay/rpc';
import { refusal, startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const send = (request: Partial<SendMessageRequest>) => callUnary(h.client, 'sendMessage', SendMessageRequest.fromPartial(request));
const create = (request: Partial<CreateSessionRequest>) => callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial(request));
const unlocks = async (sessionId: string) => (await callUnary(h.client, 'getConversation', { sessionId })).unlockedRelays;

const fromDesk = { originRelay: 'desk', originSessionId: 'd1', originSessionTitle: 'Release on desk', model: 'script-1', hops: 1, viaRelays: ['desk'] };

describe('unlocks', () => {
  it("a user's message unlocks the paired relays it mentions, by mention, and they stay unlocked", async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    expect(await unlocks(sessionId)).toEqual([]);
    await send({ userId, sessionId, text: 'ask lab about it', mentionedRelays: ['lab'] });
    expect(await unlocks(sessionId)).toEqual([{ relay: 'lab', byMention: true }]);
    await send({ userId, sessionId, text: 'thanks' });
    expect(await unlocks(sessionId)).toEqual([{ relay: 'lab', byMention: true }]);
  });

  it("a prompt from another relay's agent starts with the Remote prompt line, is an agent's, and unlocks that relay (not by mention)", async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    const sent = await send({ userId, sessionId, text: 'reply hello', provenance: fromDesk });
    const message = await h.prisma.message.findUnique({ where: { id: sent.messageId } });
    expect(message).toMatchObject({ role: 'agent', senderSessionId: null, provenance: fromDesk });
    expect(message!.text).toBe('[Remote prompt from an agent on relay "desk" · session "Release on desk" · script-1 · acting for the user]\nreply hello');
    expect(await unlocks(sessionId)).toEqual([{ relay: 'desk', byMention: false }]);

    // The user mentioning it later upgrades the unlock; the agent writing again never downgrades it.
    await send({ userId, sessionId, text: 'go on, desk', mentionedRelays: ['desk'] });
    await send({ userId, sessionId, text: 'reply again', provenance: fromDesk });
    expect(await unlocks(sessionId)).toEqual([{ relay: 'desk', byMention: true }]);
  });

  it('a session started from another relay goes into no group and has that relay unlocked', async () => {
    const userId = await h.newUser();
    const created = await create({ userId, text: 'reply hi', provenance: fromDesk });
    expect(created.session!.group).toBeUndefined();
    expect(await unlocks(created.session!.id)).toEqual([{ relay: 'desk', byMention: false }]);
    const message = await h.prisma.message.findUnique({ where: { id: created.messageId } });
    expect(message!.text.startsWith('[Remote prompt from an agent on relay "desk"')).toBe(true);
  });

  it('a prompt from an agent on this relay unlocks nothing and carries no Remote prompt line', async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId);
    const targetId = await h.newSession(userId);
    const sent = await send({ userId, callerSessionId: callerId, sessionId: targetId, text: 'reply hi', mentionedRelays: ['lab'] });
    expect((await h.prisma.message.findUnique({ where: { id: sent.messageId } }))!.text).toBe('reply hi');
    expect(await unlocks(targetId)).toEqual([]);
  });
});

describe('update_session from a paired relay', () => {
  it('changes freely a session that relay recorded its conversation as the starter of; any other needs the Allow', async () => {
    const userId = await h.newUser();
    const created = await create({ userId, text: 'reply hi', provenance: fromDesk });
    const update = (remoteCaller: typeof fromDesk, allowed = false) =>
      callUnary(
        h.client,
        'updateSession',
        UpdateSessionRequest.fromPartial({
          userId,
          sessionId: created.session!.id,
          title: `T ${remoteCaller.originRelay}/${remoteCaller.originSessionId}`,
          remoteCaller,
          allowed,
        }),
      );
    expect((await update(fromDesk)).changed).toEqual(['title']);
    expect((await refusal(update({ ...fromDesk, originSessionId: 'd2' }))).code).toBe('REMOTE_RELAY_PERMISSION');
    expect((await refusal(update({ ...fromDesk, originRelay: 'lab' }))).code).toBe('REMOTE_RELAY_PERMISSION');
    expect((await update({ ...fromDesk, originSessionId: 'd2' }, true)).changed).toEqual(['title']);

    const mine = await h.newSession(userId);
    const refused = callUnary(h.client, 'updateSession', UpdateSessionRequest.fromPartial({ userId, sessionId: mine, title: 'X', remoteCaller: fromDesk }));
    expect((await refusal(refused)).code).toBe('REMOTE_RELAY_PERMISSION');
  });
});

describe('sessions started on paired relays', () => {
  it("count among the conversation's started sessions, once each, so the first-session card is not asked again here", async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId);
    const note = () => callUnary(h.client, 'noteRemoteSessionStarted', { sessionId: leadId, relay: 'desk', remoteSessionId: 'r1' });
    await note();
    await note();
    expect((await callUnary(h.client, 'getConversation', { sessionId: leadId })).startedSessions).toBe(1);
    const checked = await create({ userId, callerSessionId: leadId, text: 'reply hi', dryRun: true });
    expect(checked.firstStartedByCaller).toBe(false);
    expect((await refusal(callUnary(h.client, 'noteRemoteSessionStarted', { sessionId: 'nope', relay: 'desk', remoteSessionId: 'r1' }))).code).toBe(
      'REMOTE_RELAY_NOT_FOUND',
    );
  });
});

describe('the Allow to change sessions on a paired relay', () => {
  it('is recorded once per conversation and relay and listed by getConversation, apart from the Allow for this relay', async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId);
    const other = await h.newSession(userId);
    const allowed = async (sessionId: string) => (await callUnary(h.client, 'getConversation', { sessionId })).updateAllowedRelays;
    expect(await allowed(leadId)).toEqual([]);

    const note = (relay: string) => callUnary(h.client, 'noteRemoteUpdateAllowed', { sessionId: leadId, relay });
    await note('lab');
    await note('lab');
    await note('build-box');
    // An Allow for this relay (recorded by update_session itself) is not a paired relay's.
    await callUnary(
      h.client,
      'updateSession',
      UpdateSessionRequest.fromPartial({ userId, callerSessionId: leadId, sessionId: other, title: 'Renamed', allowed: true }),
    );
    expect(await allowed(leadId)).toEqual(['build-box', 'lab']);
    expect(await allowed(other)).toEqual([]);

    expect((await refusal(note('this'))).code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect((await refusal(callUnary(h.client, 'noteRemoteUpdateAllowed', { sessionId: 'nope', relay: 'lab' }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
  });
});
