import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionState } from '@relay/proto/relay/session/v1/session';
import {
  ArchiveSessionRequest,
  CreateSessionRequest,
  ReadSessionRequest,
  SendMessageRequest,
  SetConversationOptionsRequest,
} from '@relay/proto/relay/session/v1/session_service';
import { callUnary } from '@relay/rpc';
import { BusStreams, SessionEvents } from '@relay/proto/relay/bus-contracts';
import { NOW, refusal, startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const read = (request: Partial<ReadSessionRequest>) => callUnary(h.client, 'readSession', ReadSessionRequest.fromPartial(request));
const archive = (request: Partial<ArchiveSessionRequest>) => callUnary(h.client, 'archiveSession', ArchiveSessionRequest.fromPartial(request));
const create = (request: Partial<CreateSessionRequest>) => callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial(request));

describe('ReadSession', () => {
  it('returns the last messages newest last, and what the running turn is doing', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId, { text: 'first' });
    await callUnary(h.client, 'sendMessage', SendMessageRequest.fromPartial({ userId, sessionId, text: 'second' }));
    await h.prisma.message.create({ data: { id: 'reply-1', sessionId, role: 'assistant', text: 'third', model: 'script-1', createdAt: NOW } });
    const [turn] = await h.prisma.turn.findMany({ where: { sessionId }, orderBy: { queuedAt: 'asc' } });
    await h.prisma.turn.update({
      where: { id: turn!.id },
      data: {
        status: 'waiting_for_answer',
        inFlight: 'Thinking…',
        pendingQuestions: [{ id: 'card-1', kind: 'ask_user', question: 'Ship?', options: ['Yes', 'No'] }],
      },
    });

    const all = await read({ userId, sessionId });
    expect(all.messages.map((message) => message.text)).toEqual(['first', 'second', 'third']);
    expect(all.inFlight).toBe('Thinking…');
    expect(all.pendingQuestions).toEqual([{ id: 'card-1', kind: 'ask_user', question: 'Ship?', options: ['Yes', 'No'] }]);
    expect((await read({ userId, sessionId, last: 2 })).messages.map((message) => message.text)).toEqual(['second', 'third']);
  });

  it('lists the other members of its group', async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId, { title: 'Lead' });
    const worker = await create({ userId, callerSessionId: leadId, text: 'reply', title: 'Worker' });
    const members = (await read({ userId, sessionId: worker.session!.id })).groupMembers;
    expect(members).toEqual([{ id: leadId, title: 'Lead', role: 'head', state: SessionState.SESSION_STATE_RUNNING_TURN, archived: false }]);
  });

  it('refuses last outside 1–100 and a session of another user', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    for (const last of [-1, 101]) expect((await refusal(read({ userId, sessionId, last }))).code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect((await refusal(read({ userId: await h.newUser('Bob'), sessionId }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
  });
});

describe('NoteAskAbout', () => {
  it('marks the session an ask is about: ReadSession answers never_asked_about until then, and not after', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    const other = await h.newSession(userId);
    expect(await read({ userId, sessionId })).toMatchObject({ neverAskedAbout: true, askMark: 0 });

    await callUnary(h.client, 'noteAskAbout', { userId, sessionId });
    const first = (await read({ userId, sessionId })).askMark;
    await callUnary(h.client, 'noteAskAbout', { userId, sessionId });
    const second = await read({ userId, sessionId });
    expect(second.neverAskedAbout).toBe(false);
    expect(first).toBeGreaterThan(0);
    expect(second.askMark).not.toBe(first);
    expect((await read({ userId, sessionId: other })).neverAskedAbout).toBe(true);
  });

  it("refuses another user's session and an unknown one, marking nothing", async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    const stranger = await h.newUser('Stranger');
    for (const request of [
      { userId: stranger, sessionId },
      { userId, sessionId: 'nope' },
    ]) {
      const error = await refusal(callUnary(h.client, 'noteAskAbout', request));
      expect(error).toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    }
    expect((await read({ userId, sessionId })).neverAskedAbout).toBe(true);
    expect(await refusal(callUnary(h.client, 'noteAskAbout', { userId: '', sessionId }))).toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  });
});

describe('ClearAskMark', () => {
  const clear = (request: { userId: string; sessionId: string; askMark: number }) => callUnary(h.client, 'clearAskMark', request);

  it('takes off the mark a read saw: the session reads as never asked about again', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    await callUnary(h.client, 'noteAskAbout', { userId, sessionId });
    const { askMark } = await read({ userId, sessionId });

    expect(await clear({ userId, sessionId, askMark })).toEqual({ cleared: true });
    expect(await read({ userId, sessionId })).toMatchObject({ neverAskedAbout: true, askMark: 0 });
    expect(await clear({ userId, sessionId, askMark })).toEqual({ cleared: false });
  });

  it('leaves a mark given after the read: an ask kept meanwhile stays visible', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    await callUnary(h.client, 'noteAskAbout', { userId, sessionId });
    const seen = (await read({ userId, sessionId })).askMark;
    await callUnary(h.client, 'noteAskAbout', { userId, sessionId });

    expect(await clear({ userId, sessionId, askMark: seen })).toEqual({ cleared: false });
    expect((await read({ userId, sessionId })).neverAskedAbout).toBe(false);
  });

  it("refuses another user's session and an unknown one, clearing nothing", async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    await callUnary(h.client, 'noteAskAbout', { userId, sessionId });
    const { askMark } = await read({ userId, sessionId });
    const stranger = await h.newUser('Stranger');
    for (const request of [
      { userId: stranger, sessionId, askMark },
      { userId, sessionId: 'nope', askMark },
    ]) {
      expect(await refusal(clear(request))).toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    }
    expect((await read({ userId, sessionId })).askMark).toBe(askMark);
    expect(await refusal(clear({ userId: '', sessionId, askMark }))).toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  });
});

describe('ArchiveSession', () => {
  it('archives, drops queued turns, asks a running one to stop, and publishes archived', async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId);
    const worker = (await create({ userId, callerSessionId: leadId, text: 'one' })).session!.id;
    await callUnary(h.client, 'sendMessage', SendMessageRequest.fromPartial({ userId, sessionId: worker, text: 'two' }));
    const [running] = await h.prisma.turn.findMany({ where: { sessionId: worker }, orderBy: { queuedAt: 'asc' } });
    await h.prisma.turn.update({ where: { id: running!.id }, data: { status: 'running' } });

    const archived = await archive({ userId, callerSessionId: leadId, sessionId: worker });
    expect(archived.session).toMatchObject({ id: worker, archived: true });
    // Both were queued at the same instant of the test's clock: told apart by id, not by their order.
    const turns = await h.prisma.turn.findMany({ where: { sessionId: worker } });
    expect(turns.map((turn) => [turn.id === running!.id ? 'the running one' : 'the queued one', turn.status, turn.stopRequested]).sort()).toEqual([
      ['the queued one', 'stopped', false],
      ['the running one', 'running', true],
    ]);

    await h.outbox.flush();
    const event = await h.bus.jsm.streams.getMessage(BusStreams.SESSION_EVENTS.name, { last_by_subj: SessionEvents.ARCHIVED.subject });
    expect(event!.json()).toMatchObject({ sessionId: worker, userId });

    // Archiving again changes nothing.
    const before = await h.dumpState();
    await archive({ userId, callerSessionId: leadId, sessionId: worker });
    expect(await h.dumpState()).toEqual(before);
  });

  it('removes an agent-made group once every session in it is archived', async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId);
    const worker = (await create({ userId, callerSessionId: leadId, text: 'one' })).session!.id;
    const groupId = (await h.prisma.session.findUnique({ where: { id: worker } }))!.groupId!;
    await archive({ userId, callerSessionId: leadId, sessionId: worker });
    expect(await h.prisma.group.findUnique({ where: { id: groupId } })).not.toBeNull();
    await archive({ userId, sessionId: leadId });
    expect(await h.prisma.group.findUnique({ where: { id: groupId } })).toBeNull();
    expect(await h.prisma.session.findUnique({ where: { id: worker } })).toMatchObject({ groupId: null, groupRole: null });
  });

  it("refuses the caller's own conversation and an unknown session, changing nothing", async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId);
    const before = await h.dumpState();
    expect((await refusal(archive({ userId, callerSessionId: leadId, sessionId: leadId }))).code).toBe('REMOTE_RELAY_FORBIDDEN');
    expect((await refusal(archive({ userId, callerSessionId: leadId, sessionId: 'nope' }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
    expect(await h.dumpState()).toEqual(before);
  });
});

describe('GetRelayInfo, ListSessions, GetConversation, SetConversationOptions', () => {
  it('shows providers, folders, modes and the groups with sessions, latest activity first', async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId, { title: 'Lead', cwd: '/home/dev/a' });
    h.clock.advance(1000);
    await h.newSession(userId, { cwd: '/tmp/b' });
    h.clock.advance(1000);
    await create({ userId, callerSessionId: leadId, text: 'reply' });
    await h.prisma.group.create({ data: { id: 'grp_empty', userId, name: 'Empty', madeBy: 'user', createdAt: NOW, lastActivityAt: NOW } });

    const info = await callUnary(h.client, 'getRelayInfo', { userId, withoutUsage: false });
    expect(info.providers.map((p) => [p.id, p.available])).toContainEqual(['script', true]);
    expect(info.providers.find((p) => p.id === 'copilot')).toMatchObject({
      available: false,
      models: ['claude-opus-5.5', 'claude-sonnet-5.5', 'gpt-5.4', 'gpt-5.4-mini'],
    });
    expect(info).toMatchObject({ defaultCwd: '/home/dev', recentCwds: ['/home/dev/a', '/tmp/b'], modes: ['agent', 'ask', 'plan'], groupsTotal: 1 });
    expect(info.groups).toEqual([{ id: expect.stringMatching(/^grp_/), name: 'Lead', memberCount: 2 }]);
    expect(info.settings).toMatchObject({ agentSessionsEnabled: true, maxWaitSeconds: 600 });
    expect(info.usage?.providers.map((usage) => usage.provider)).toContain('script');

    // relay_info's own question: the same answer without the usage report and the settings.
    const { usage, settings, ...rest } = info;
    expect(await callUnary(h.client, 'getRelayInfo', { userId, withoutUsage: true })).toEqual({ ...rest, usage: undefined, settings: undefined });
  });

  it('lists sessions with every field: group, starter, mode, effort, mayCreateSessions', async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId, { title: 'Lead' });
    const worker = (await create({ userId, callerSessionId: leadId, provider: 'claude', effort: 'low', text: 'go' })).session!.id;
    await callUnary(
      h.client,
      'setConversationOptions',
      SetConversationOptionsRequest.fromPartial({ userId, sessionId: worker, mayCreateSessions: true, mode: 'ask' }),
    );
    const listed = await callUnary(h.client, 'listSessions', { userId, scope: '', limit: 100, offset: 0 });
    expect(listed.sessions.find((session) => session.id === worker)).toMatchObject({
      provider: 'claude',
      effort: 'low',
      mode: 'ask',
      startedBySessionId: leadId,
      startedByTitle: 'Lead',
      mayCreateSessions: true,
      group: { name: 'Lead', role: 'member' },
    });
    expect(listed.sessions.find((session) => session.id === leadId)!.group).toMatchObject({ name: 'Lead', role: 'head' });
  });

  it("answers a conversation's running turn and what it started", async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId);
    await create({ userId, callerSessionId: leadId, text: 'reply' });
    expect(await callUnary(h.client, 'getConversation', { sessionId: leadId })).toMatchObject({ hasRunningTurn: false, startedSessions: 1 });
    await h.prisma.turn.updateMany({ where: { sessionId: leadId }, data: { status: 'running' } });
    expect((await callUnary(h.client, 'getConversation', { sessionId: leadId })).hasRunningTurn).toBe(true);
    expect((await refusal(callUnary(h.client, 'getConversation', { sessionId: 'nope' }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
  });

  it("answers what waits unread for an external session's agent, oldest first; none for a hosted session", async () => {
    const userId = await h.newUser();
    const external = (await callUnary(h.client, 'createExternalSession', { userId, title: 'IDE' })).session!.id;
    expect(await callUnary(h.client, 'getPendingMessages', { sessionId: external })).toEqual({ pending: { count: 0, previews: [] } });
    const texts = ['[relay event · automated message]\n[relay event] one', 'two', 'three', 'four'];
    for (const [index, text] of texts.entries()) {
      await h.prisma.message.create({
        data: { id: `ev-${external}-${index}`, sessionId: external, role: index === 1 ? 'user' : 'event', text, model: '', createdAt: NOW },
      });
    }
    // The user's own line is not pending; the relay event's header line is skipped.
    const pending = { count: 3, previews: ['[relay event] one', 'three', 'four'] };
    expect(await callUnary(h.client, 'getPendingMessages', { sessionId: external })).toEqual({ pending });
    expect((await callUnary(h.client, 'getConversation', { sessionId: external })).pending).toEqual(pending);
    // The reads an agent makes answer it along when asked, and only then.
    expect((await callUnary(h.client, 'listSessions', { userId, scope: '', pendingForSessionId: external, limit: 100, offset: 0 })).pending).toEqual(pending);
    expect((await callUnary(h.client, 'listSessions', { userId, scope: '', limit: 100, offset: 0 })).pending).toBeUndefined();
    expect((await callUnary(h.client, 'getRelayInfo', { userId, withoutUsage: true, pendingForSessionId: external })).pending).toEqual(pending);
    expect((await callUnary(h.client, 'getRelayInfo', { userId, withoutUsage: false, pendingForSessionId: external })).pending).toEqual(pending);
    // A read that marks nothing read carries the note as it was (a user's read of the conversation marks nothing).
    expect((await read({ userId, sessionId: external, last: 2, pendingForSessionId: external })).pending).toEqual(pending);
    // Reading its own conversation marks what it read, before the note along is read.
    expect((await read({ userId, sessionId: external, last: 2, readerSessionId: external, pendingForSessionId: external })).pending).toEqual({
      count: 0,
      previews: [],
    });
    expect(await callUnary(h.client, 'getPendingMessages', { sessionId: external })).toEqual({ pending: { count: 0, previews: [] } });
    // A note that cannot be read leaves the read whole.
    const listed = await callUnary(h.client, 'listSessions', { userId, scope: '', pendingForSessionId: 'nope', limit: 100, offset: 0 });
    expect(listed.pending).toBeUndefined();
    expect(listed.sessions.map((one) => one.id)).toContain(external);
    const readWhole = await read({ userId, sessionId: external, pendingForSessionId: 'nope' });
    expect([readWhole.pending, readWhole.messages.length]).toEqual([undefined, 4]);

    const hosted = await h.newSession(userId);
    expect(await callUnary(h.client, 'getPendingMessages', { sessionId: hosted })).toEqual({ pending: undefined });
    expect((await refusal(callUnary(h.client, 'getPendingMessages', { sessionId: 'nope' }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
  });

  it("answers what waits for several external sessions' agents at once, leaving out any other id", async () => {
    const userId = await h.newUser();
    const [ide, editor] = await Promise.all(
      ['IDE', 'Editor'].map(async (title) => (await callUnary(h.client, 'createExternalSession', { userId, title })).session!.id),
    );
    await h.prisma.message.create({ data: { id: `ev-${ide}`, sessionId: ide!, role: 'event', text: '[relay event] one', model: '', createdAt: NOW } });
    const hosted = await h.newSession(userId);
    expect(await callUnary(h.client, 'listPendingMessages', { sessionIds: [ide!, editor!, hosted, 'nope'] })).toEqual({
      pending: { [ide!]: { count: 1, previews: ['[relay event] one'] }, [editor!]: { count: 0, previews: [] } },
    });
    expect(await callUnary(h.client, 'listPendingMessages', { sessionIds: [] })).toEqual({ pending: {} });
    const tooMany = Array.from({ length: 1_001 }, (_, i) => `s${i}`);
    expect((await refusal(callUnary(h.client, 'listPendingMessages', { sessionIds: tooMany }))).code).toBe('REMOTE_RELAY_INVALID_INPUT');
  });

  it('refuses a bad mode in the owner options, changing nothing', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    const before = await h.dumpState();
    const error = await refusal(callUnary(h.client, 'setConversationOptions', SetConversationOptionsRequest.fromPartial({ userId, sessionId, mode: 'yolo' })));
    expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(await h.dumpState()).toEqual(before);
  });
});
