import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateSessionRequest, UpdateSessionRequest } from '@relay/proto/relay/session/v1/session_service';
import { callUnary } from '@relay/rpc';
import { NOW, refusal, startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const update = (request: Partial<UpdateSessionRequest>) => callUnary(h.client, 'updateSession', UpdateSessionRequest.fromPartial(request));

async function expectRefused(request: Partial<UpdateSessionRequest>, code: string): Promise<Record<string, unknown>> {
  const before = await h.dumpState();
  const error = await refusal(update(request));
  expect(error.code).toBe(code);
  expect(await h.dumpState()).toEqual(before);
  return { message: error.message, ...error.details };
}

/** A lead conversation and a session it started (idle: its first turn is done). */
async function leadAndStarted(): Promise<{ userId: string; leadId: string; startedId: string }> {
  const userId = await h.newUser();
  const leadId = await h.newSession(userId, { title: 'Lead' });
  const created = await callUnary(
    h.client,
    'createSession',
    CreateSessionRequest.fromPartial({ userId, callerSessionId: leadId, text: 'reply x', title: 'Worker' }),
  );
  const startedId = created.session!.id;
  await h.prisma.turn.updateMany({ where: { sessionId: startedId }, data: { status: 'done', endedAt: NOW } });
  await h.prisma.session.update({ where: { id: startedId }, data: { state: 'idle' } });
  return { userId, leadId, startedId };
}

describe('UpdateSession on a session the conversation started', () => {
  it('changes the settings named and answers the settings and what changed', async () => {
    const { userId, leadId, startedId } = await leadAndStarted();
    const updated = await update({ userId, callerSessionId: leadId, sessionId: startedId, title: 'Renamed', mode: 'plan', model: 'script-1' });
    expect(updated.changed).toEqual(['mode', 'title']);
    expect(updated.settings).toMatchObject({ title: 'Renamed', mode: 'plan', model: 'script-1', autoCompactWindow: 'auto', thinkingDisplay: 'summarized' });
    expect(updated.needsAllow).toBe(false);
    expect(await h.prisma.session.findUnique({ where: { id: startedId } })).toMatchObject({ title: 'Renamed', mode: 'plan' });
  });

  it('answers changed [] when nothing would change, and writes nothing', async () => {
    const { userId, leadId, startedId } = await leadAndStarted();
    const before = await h.dumpState();
    expect((await update({ userId, callerSessionId: leadId, sessionId: startedId, mode: 'agent' })).changed).toEqual([]);
    expect(await h.dumpState()).toEqual(before);
  });

  it('says the window and thinking apply to Claude sessions only, and changes nothing on script', async () => {
    const { userId, leadId, startedId } = await leadAndStarted();
    const updated = await update({ userId, callerSessionId: leadId, sessionId: startedId, autoCompactWindow: '200000', thinkingEnabled: false });
    expect(updated.changed).toEqual([]);
    expect(updated.note).toContain('apply to Claude sessions only');
  });

  it('moves the folder without a relaunch (script needs none) and says it is saved for the next start', async () => {
    const { userId, leadId, startedId } = await leadAndStarted();
    await h.prisma.session.update({ where: { id: startedId }, data: { workerStarted: true } });
    const updated = await update({ userId, callerSessionId: leadId, sessionId: startedId, cwd: '/tmp/elsewhere/' });
    expect(updated).toMatchObject({ changed: ['cwd'], relaunched: false, settings: { cwd: '/tmp/elsewhere' } });
    expect(updated.note).toContain('saved for its next start');
  });

  it('makes a new group for an unknown name (the session heads it) and removes the agent-made group it left once empty', async () => {
    const { userId, leadId, startedId } = await leadAndStarted();
    const oldGroup = (await h.prisma.session.findUnique({ where: { id: startedId } }))!.groupId!;
    // The lead's own group empties too when the lead is archived; here only the worker moves.
    const updated = await update({ userId, callerSessionId: leadId, sessionId: startedId, group: 'Hotfix' });
    expect(updated.changed).toEqual(['group']);
    expect(updated.groupCreated).toMatchObject({ name: 'Hotfix', memberCount: 1 });
    expect(updated.settings!.group).toEqual({ id: updated.groupCreated!.id, name: 'Hotfix', role: 'head' });
    expect(await h.prisma.group.findUnique({ where: { id: updated.groupCreated!.id } })).toMatchObject({ madeBy: 'agent', name: 'Hotfix' });
    // The lead is still in the old group, so it stays.
    expect(await h.prisma.group.findUnique({ where: { id: oldGroup } })).not.toBeNull();

    const left = await update({ userId, callerSessionId: leadId, sessionId: startedId, group: '' });
    expect(left.changed).toEqual(['group']);
    expect(left.settings!.group).toBeUndefined();
    expect(await h.prisma.group.findUnique({ where: { id: updated.groupCreated!.id } })).toBeNull();
  });

  it('never removes a group the user made, even when the last session leaves it', async () => {
    const { userId, leadId, startedId } = await leadAndStarted();
    await h.prisma.group.create({ data: { id: 'grp_users', userId, name: 'Mine', madeBy: 'user', createdAt: NOW, lastActivityAt: NOW } });
    await update({ userId, callerSessionId: leadId, sessionId: startedId, group: 'grp_users' });
    await update({ userId, callerSessionId: leadId, sessionId: startedId, group: '' });
    expect(await h.prisma.group.findUnique({ where: { id: 'grp_users' } })).not.toBeNull();
  });

  it('hands the head over when the head leaves a group others remain in', async () => {
    const { userId, leadId, startedId } = await leadAndStarted();
    const groupId = (await h.prisma.session.findUnique({ where: { id: leadId } }))!.groupId!;
    await update({ userId, sessionId: leadId, group: '' });
    expect(await h.prisma.session.findUnique({ where: { id: startedId } })).toMatchObject({ groupId, groupRole: 'head' });
  });
});

describe('UpdateSession on a session the conversation did not start', () => {
  it("needs the user's Allow: a dry run says so, a call without it is refused, a call with it records the grant", async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId);
    const otherId = await h.newSession(userId);

    const before = await h.dumpState();
    const dry = await update({ userId, callerSessionId: callerId, sessionId: otherId, title: 'T', dryRun: true });
    expect(dry).toMatchObject({ needsAllow: true, changed: ['title'] });
    expect(await h.dumpState()).toEqual(before);
    await expectRefused({ userId, callerSessionId: callerId, sessionId: otherId, title: 'T' }, 'REMOTE_RELAY_PERMISSION');

    const allowed = await update({ userId, callerSessionId: callerId, sessionId: otherId, title: 'T', allowed: true });
    expect(allowed.changed).toEqual(['title']);
    expect(await h.prisma.conversationGrant.findMany({ where: { sessionId: callerId } })).toEqual([
      { sessionId: callerId, kind: 'update_others', relay: 'this', createdAt: NOW },
    ]);
    // Allow covers the conversation's later changes on this relay.
    expect((await update({ userId, callerSessionId: callerId, sessionId: otherId, title: 'U', dryRun: true })).needsAllow).toBe(false);
  });

  it('asks nobody when nothing would change', async () => {
    const userId = await h.newUser();
    const callerId = await h.newSession(userId);
    const otherId = await h.newSession(userId);
    expect(await update({ userId, callerSessionId: callerId, sessionId: otherId, mode: 'agent', dryRun: true })).toMatchObject({
      needsAllow: false,
      changed: [],
    });
  });
});

describe('UpdateSession refusals change nothing', () => {
  it('refuses every wrong call before anything changes', async () => {
    const { userId, leadId, startedId } = await leadAndStarted();
    const base = { userId, callerSessionId: leadId, sessionId: startedId };
    await expectRefused(base, 'REMOTE_RELAY_INVALID_INPUT');
    await expectRefused({ ...base, sessionId: leadId, title: 'x' }, 'REMOTE_RELAY_FORBIDDEN');
    await expectRefused({ ...base, sessionId: 'nope', title: 'x' }, 'REMOTE_RELAY_NOT_FOUND');
    const model = await expectRefused({ ...base, model: 'script-2', title: 'x' }, 'REMOTE_RELAY_UNKNOWN_MODEL');
    expect(model).toMatchObject({ suggestions: ['script-1'], models: ['script-1'] });
    await expectRefused({ ...base, group: 'grp_missing' }, 'REMOTE_RELAY_UNKNOWN_GROUP');
    await expectRefused({ ...base, cwd: '/etc' }, 'REMOTE_RELAY_INVALID_INPUT');
    await expectRefused({ ...base, cwd: '/tmp/repo/.relay' }, 'REMOTE_RELAY_INVALID_INPUT');
    const place = await mkdtemp(join(tmpdir(), 'relay-cwd-'));
    await symlink('/etc', join(place, 'etc-link'));
    const escaped = await expectRefused({ ...base, cwd: join(place, 'etc-link') }, 'REMOTE_RELAY_INVALID_INPUT').finally(() =>
      rm(place, { recursive: true, force: true }),
    );
    expect(escaped['message']).toContain("cwd '/etc' is outside the folders");
    await expectRefused({ ...base, effort: 'high' }, 'REMOTE_RELAY_INVALID_INPUT');
    await h.prisma.session.update({ where: { id: startedId }, data: { archived: true } });
    await expectRefused({ ...base, title: 'x' }, 'REMOTE_RELAY_ARCHIVED');
  });

  it('refuses a new folder while a turn is queued there', async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    const details = await expectRefused({ userId, sessionId, cwd: '/tmp/x', title: 'also' }, 'REMOTE_RELAY_BUSY');
    expect(details['message']).toBe('The session cannot move to another folder now: a turn is queued or running there. Nothing was changed.');
  });

  it('refuses a new folder while one of its background tasks runs, and takes it once the task ended', async () => {
    const { userId, startedId } = await leadAndStarted();
    const task = {
      id: `task_${startedId.replaceAll('-', '').slice(0, 16)}`,
      sessionId: startedId,
      description: 'npm test',
      status: 'running',
      cwd: '/tmp',
      host: 'h',
      runnerId: 'r',
      startedAt: NOW,
    };
    await h.prisma.task.create({ data: task });
    const details = await expectRefused({ userId, sessionId: startedId, cwd: '/tmp/x' }, 'REMOTE_RELAY_BUSY');
    expect(details['message']).toBe('The session cannot move to another folder now: a background task it started still runs there. Nothing was changed.');
    await h.prisma.task.update({ where: { id: task.id }, data: { status: 'completed', exitCode: 0, endedAt: NOW } });
    const updated = await update({ userId, sessionId: startedId, cwd: '/tmp/x' });
    expect(updated.settings?.cwd).toBe('/tmp/x');
  });

  it('refuses a group name that fits two groups', async () => {
    const { userId, leadId, startedId } = await leadAndStarted();
    for (const id of ['grp_a', 'grp_b']) {
      await h.prisma.group.create({ data: { id, userId, name: 'Twins', madeBy: 'user', createdAt: NOW, lastActivityAt: NOW } });
    }
    const details = await expectRefused({ userId, callerSessionId: leadId, sessionId: startedId, group: 'twins' }, 'REMOTE_RELAY_UNKNOWN_GROUP');
    expect(details['groupsTotal']).toBe(2);
    expect(details['message']).toContain('Pass the id.');
  });
});
