import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionState } from '@relay/proto/relay/session/v1/session';
import { CreateSessionRequest, SetConversationOptionsRequest } from '@relay/proto/relay/session/v1/session_service';
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

describe('CreateSession by a user', () => {
  it('starts a script session, queues its first prompt in one transaction and publishes turn_queued', async () => {
    const userId = await h.newUser();
    const created = await callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial({ userId, text: 'reply hello\nmore', cwd: '/home/dev/shop/' }));
    expect(created).toMatchObject({ modelNote: '', groupWarning: '', firstStartedByCaller: false });
    expect(created.session).toMatchObject({
      userId,
      title: 'reply hello',
      provider: 'script',
      model: 'script-1',
      mode: 'agent',
      cwd: '/home/dev/shop',
      state: SessionState.SESSION_STATE_RUNNING_TURN,
      messageCount: 1,
      startedBySessionId: '',
      lastActivityAt: NOW,
    });
    expect(created.session!.group).toBeUndefined();
    const sessionId = created.session!.id;

    const [message] = await h.prisma.message.findMany({ where: { sessionId } });
    expect(message).toMatchObject({ id: created.messageId, role: 'user', text: 'reply hello\nmore', provenance: null, senderSessionId: null });
    const [turn] = await h.prisma.turn.findMany({ where: { sessionId } });
    expect(turn).toMatchObject({ messageId: created.messageId, status: 'queued', mode: 'agent', queuedAt: NOW });

    await h.outbox.flush();
    const event = await h.bus.jsm.streams.getMessage(BusStreams.SESSION_EVENTS.name, { last_by_subj: SessionEvents.TURN_QUEUED.subject });
    expect(event!.json()).toMatchObject({ sessionId, userId, turnId: turn!.id, messageId: created.messageId, occurredAt: NOW.toISOString() });
    const createdEvent = await h.bus.jsm.streams.getMessage(BusStreams.SESSION_EVENTS.name, { last_by_subj: SessionEvents.SESSION_CREATED.subject });
    expect(createdEvent!.json()).toMatchObject({ session: { id: sessionId, provider: 'script' } });
  });

  it('creates nothing on a dry run, and answers the session as it would be', async () => {
    const userId = await h.newUser();
    const before = await h.dumpState();
    const dry = await callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial({ userId, text: 'reply hi', dryRun: true }));
    expect(dry.messageId).toBe('');
    expect(dry.session).toMatchObject({ id: '', provider: 'script', model: 'script-1', cwd: '/home/dev' });
    expect(await h.dumpState()).toEqual(before);
  });
});

describe('CreateSession by an agent', () => {
  it('puts the first session into a new group headed by the caller, the next into the same group, with provenance', async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId, { title: 'Lead', mode: 'plan' });

    const first = await callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial({ userId, callerSessionId: callerId, text: 'reply one' }));
    expect(first.firstStartedByCaller).toBe(true);
    expect(first.session).toMatchObject({ mode: 'plan', cwd: '/home/dev/shop', startedBySessionId: callerId, startedByTitle: 'Lead' });
    const group = first.session!.group!;
    expect(group).toMatchObject({ name: 'Lead', role: 'member' });
    expect(group.id).toMatch(/^grp_/);
    expect(await h.prisma.group.findUnique({ where: { id: group.id } })).toMatchObject({ madeBy: 'agent', name: null });
    expect(await h.prisma.session.findUnique({ where: { id: callerId } })).toMatchObject({ groupId: group.id, groupRole: 'head' });

    const [message] = await h.prisma.message.findMany({ where: { sessionId: first.session!.id } });
    expect(message).toMatchObject({
      role: 'agent',
      senderSessionId: callerId,
      provenance: { originRelay: 'build-box', originSessionId: callerId, originSessionTitle: 'Lead', model: 'script-1', hops: 0 },
    });
    expect(await h.prisma.turn.findFirst({ where: { sessionId: first.session!.id } })).toMatchObject({ senderSessionId: callerId, mode: 'plan' });

    const second = await callUnary(
      h.client,
      'createSession',
      CreateSessionRequest.fromPartial({ userId, callerSessionId: callerId, text: 'reply two', title: 'Two' }),
    );
    expect(second.firstStartedByCaller).toBe(false);
    expect(second.session!.group).toEqual({ id: group.id, name: 'Lead', role: 'member' });
  });

  it('takes provenance given by the gateway as it is', async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId);
    const provenance = { originRelay: 'desk', originSessionId: 'far', originSessionTitle: 'Far away', model: 'claude-opus-5-5', hops: 1, viaRelays: ['desk'] };
    const created = await callUnary(
      h.client,
      'createSession',
      CreateSessionRequest.fromPartial({ userId, callerSessionId: callerId, text: 'reply x', provenance }),
    );
    expect((await h.prisma.message.findUnique({ where: { id: created.messageId } }))!.provenance).toEqual(provenance);
  });

  it('goes into a group named by name in any case', async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId);
    await h.prisma.group.create({ data: { id: 'grp_release', userId, name: 'Release 2.4', madeBy: 'user', createdAt: NOW, lastActivityAt: NOW } });
    const created = await callUnary(
      h.client,
      'createSession',
      CreateSessionRequest.fromPartial({ userId, callerSessionId: callerId, text: 'reply x', group: 'release 2.4' }),
    );
    expect(created.session!.group).toEqual({ id: 'grp_release', name: 'Release 2.4', role: 'member' });
    // The caller stays out of it: a named group is the new session's, not its starter's.
    expect((await h.prisma.session.findUnique({ where: { id: callerId } }))!.groupId).toBeNull();
  });

  it('takes a Claude (subscription) session with the effort asked', async () => {
    const userId = await h.newUser();
    const created = await callUnary(
      h.client,
      'createSession',
      CreateSessionRequest.fromPartial({ userId, provider: 'claude', effort: 'high', text: 'Review server/.' }),
    );
    expect(created.session).toMatchObject({ provider: 'claude', model: 'claude-opus-5-5', effort: 'high' });
  });
});

describe('CreateSession refusals change nothing', () => {
  async function expectRefused(request: Partial<CreateSessionRequest>, code: string): Promise<Record<string, unknown>> {
    const before = await h.dumpState();
    const error = await refusal(callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial(request as never)));
    expect(error.code).toBe(code);
    expect(await h.dumpState()).toEqual(before);
    return { message: error.message, ...error.details };
  }

  it('refuses an unknown model with suggestions and models, before availability (Copilot is not set up)', async () => {
    const userId = await h.newUser();
    const details = await expectRefused({ userId, provider: 'copilot', model: 'gpt-5-4', text: 'x' }, 'REMOTE_RELAY_UNKNOWN_MODEL');
    expect(details).toEqual({
      message: `Unknown model 'gpt-5-4' for Copilot on relay "build-box"; did you mean 'gpt-5.4'? Valid ids: claude-opus-5.5, claude-sonnet-5.5, gpt-5.4, gpt-5.4-mini. Nothing was created.`,
      suggestions: ['gpt-5.4'],
      models: ['claude-opus-5.5', 'claude-sonnet-5.5', 'gpt-5.4', 'gpt-5.4-mini'],
    });
    await expectRefused({ userId, provider: 'copilot', model: 'claude-opus-5-5', text: 'x' }, 'CLAUDE_PROVIDER_REQUIRED');
  });

  it('refuses a provider that is not set up, with its code', async () => {
    const userId = await h.newUser();
    const details = await expectRefused({ userId, provider: 'claude-api', text: 'x' }, 'REMOTE_RELAY_PROVIDER_UNAVAILABLE');
    expect(details['remoteCode']).toBe('CLAUDE_API_NOT_CONFIGURED');
    expect(details['message']).toBe(
      'Claude API is not available on relay "build-box": no Anthropic API key configured (ANTHROPIC_API_KEY). Nothing was created.',
    );
  });

  it('refuses an OpenAI Image chat, repo without claude-cloud, a folder outside the roots', async () => {
    const userId = await h.newUser();
    await expectRefused({ userId, provider: 'openai-image', text: 'x' }, 'REMOTE_RELAY_UNSUPPORTED');
    await expectRefused({ userId, repo: 'org/repo', text: 'x' }, 'REMOTE_RELAY_INVALID_INPUT');
    await expectRefused({ userId, cwd: '/etc', text: 'x' }, 'REMOTE_RELAY_INVALID_INPUT');
    await expectRefused({ userId, text: '' }, 'REMOTE_RELAY_INVALID_INPUT');
  });

  it('checks a folder by its real path: a symbolic link inside a root that leads out of the roots is refused, one that stays in is kept resolved', async () => {
    const userId = await h.newUser();
    const place = await mkdtemp(join(tmpdir(), 'relay-cwd-'));
    try {
      await symlink('/etc', join(place, 'etc-link'));
      await mkdir(join(place, 'real'));
      await symlink(join(place, 'real'), join(place, 'inside-link'));
      const details = await expectRefused({ userId, cwd: join(place, 'etc-link', 'ssl'), text: 'x' }, 'REMOTE_RELAY_INVALID_INPUT');
      expect(details['message']).toBe("cwd '/etc/ssl' is outside the folders sessions on this relay may use (/home/dev, /tmp).");
      const created = await callUnary(
        h.client,
        'createSession',
        CreateSessionRequest.fromPartial({ userId, text: 'reply hi', cwd: join(place, 'inside-link', 'not-yet') }),
      );
      expect(created.session?.cwd).toBe(join(place, 'real', 'not-yet'));
    } finally {
      await rm(place, { recursive: true, force: true });
    }
  });

  it("refuses the relay's state folder (.relay) as a session's folder", async () => {
    const userId = await h.newUser();
    const details = await expectRefused({ userId, cwd: '/tmp/repo/.relay', text: 'x' }, 'REMOTE_RELAY_INVALID_INPUT');
    expect(details['message']).toContain("inside the relay's own state folder (.relay)");
  });

  it("refuses an unknown group with the spec's sentence and the groups there", async () => {
    const userId = await h.newUser();
    await h.prisma.group.create({ data: { id: 'grp_rel24', userId, name: 'Release 2.4', madeBy: 'user', createdAt: NOW, lastActivityAt: NOW } });
    const details = await expectRefused({ userId, group: 'Relase', text: 'x' }, 'REMOTE_RELAY_UNKNOWN_GROUP');
    expect(details).toEqual({
      message: 'Relay "build-box" has no session group "Relase". Groups there: Release 2.4 (grp_rel24). No session was created.',
      groups: [{ id: 'grp_rel24', name: 'Release 2.4', memberCount: 0 }],
      groupsTotal: 1,
    });
  });

  it('refuses a session an agent created, unless the owner lets it start sessions', async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId);
    const child = await callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial({ userId, callerSessionId: leadId, text: 'reply x' }));
    const childId = child.session!.id;
    await expectRefused({ userId, callerSessionId: childId, text: 'reply y' }, 'REMOTE_RELAY_NESTING');

    await callUnary(h.client, 'setConversationOptions', SetConversationOptionsRequest.fromPartial({ userId, sessionId: childId, mayCreateSessions: true }));
    const grandchild = await callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial({ userId, callerSessionId: childId, text: 'reply y' }));
    expect(grandchild.session!.startedBySessionId).toBe(childId);
  });

  it('refuses a fifth started session at work, and takes one again once a turn has finished', async () => {
    const userId = await h.newUser();
    const leadId = await h.newSession(userId);
    for (let i = 0; i < 4; i += 1)
      await callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial({ userId, callerSessionId: leadId, text: `reply ${i}` }));
    const details = await expectRefused({ userId, callerSessionId: leadId, text: 'reply 5' }, 'REMOTE_RELAY_ACTIVE_LIMIT');
    expect(details).toMatchObject({ limit: 4, atWork: 4 });

    const [started] = await h.prisma.session.findMany({ where: { startedBySessionId: leadId } });
    await h.prisma.turn.updateMany({ where: { sessionId: started!.id }, data: { status: 'done', endedAt: NOW } });
    await callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial({ userId, callerSessionId: leadId, text: 'reply 5' }));
  });

  it("refuses another user's calling session as not found", async () => {
    const userId = await h.newUser();
    const other = await h.newUser('Bob');
    const othersSession = await h.newSession(other);
    await expectRefused({ userId, callerSessionId: othersSession, text: 'x' }, 'REMOTE_RELAY_NOT_FOUND');
  });
});
