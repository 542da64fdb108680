import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ArchiveSessionRequest,
  AuthenticateRequest,
  CreateExternalSessionRequest,
  ListSessionsRequest,
  UnarchiveSessionRequest,
} from '@relay/proto/relay/session/v1/session_service';
import { callUnary } from '@relay/rpc';
import { refusal, startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const archive = (request: Partial<ArchiveSessionRequest>) => callUnary(h.client, 'archiveSession', ArchiveSessionRequest.fromPartial(request));
const unarchive = (request: Partial<UnarchiveSessionRequest>) => callUnary(h.client, 'unarchiveSession', UnarchiveSessionRequest.fromPartial(request));
const activeIds = async (userId: string) =>
  (await callUnary(h.client, 'listSessions', ListSessionsRequest.fromPartial({ userId, scope: 'active', limit: 100 }))).sessions.map((session) => session.id);

describe('UnarchiveSession', () => {
  it('brings an archived session back to the active list, with its token working again', async () => {
    const userId = await h.newUser();
    const created = await callUnary(h.client, 'createExternalSession', CreateExternalSessionRequest.fromPartial({ userId, title: 'Editor' }));
    const sessionId = created.session!.id;
    await archive({ userId, sessionId });
    expect(await activeIds(userId)).not.toContain(sessionId);
    expect((await refusal(callUnary(h.client, 'authenticate', AuthenticateRequest.fromPartial({ token: created.token })))).kind).toBe('unauthenticated');

    const { session } = await unarchive({ userId, sessionId });
    expect(session).toMatchObject({ id: sessionId, archived: false });
    expect(await activeIds(userId)).toContain(sessionId);
    expect((await callUnary(h.client, 'authenticate', AuthenticateRequest.fromPartial({ token: created.token }))).caller).toMatchObject({ sessionId });

    // An unarchived session: nothing changes.
    const before = await h.dumpState();
    await unarchive({ userId, sessionId });
    expect(await h.dumpState()).toEqual(before);
  });

  it("refuses another user's session and an unknown one, changing nothing", async () => {
    const userId = await h.newUser();
    const sessionId = await h.newSession(userId);
    await archive({ userId, sessionId });
    const bob = await h.newUser('Bob');
    const before = await h.dumpState();
    expect((await refusal(unarchive({ userId: bob, sessionId }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
    expect((await refusal(unarchive({ userId, sessionId: '00000000-0000-4000-8000-000000000000' }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
    expect(await h.dumpState()).toEqual(before);
  });
});
