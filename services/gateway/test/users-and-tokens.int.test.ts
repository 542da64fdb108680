// Removing users and rotating or revoking tokens in the user API, through the real gateway app and
// the gateway's session client, in front of the fake session service: who may, what the owner is asked, what each answers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@relay/errors';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway('desk');
});

afterEach(() => {
  gateway.owners.reset();
});

afterAll(async () => {
  await gateway.close();
});

async function api(method: string, path: string, token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gateway.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const callsOf = (method: string) => gateway.owners.calls.filter((call) => call.method === method).map((call) => call.request);

describe('DELETE /api/v1/users/:id', () => {
  it("removes a user for an admin, naming the admin, and the user's token is refused at once", async () => {
    const admin = gateway.owners.addUser('u-admin', 'admin');
    const bob = gateway.owners.addUser('u-bob', 'member');
    const removed = await api('DELETE', '/api/v1/users/u-bob', admin);
    expect(removed).toEqual({ status: 200, body: { user: expect.objectContaining({ id: 'u-bob', role: 'member' }), removed: true, archivedSessions: 0 } });
    expect(callsOf('removeUser')).toEqual([{ userId: 'u-bob', callerUserId: 'u-admin' }]);
    expect((await api('GET', '/api/v1/me', bob)).status).toBe(401);
  });

  it('refuses a member with 403 and asks the owner nothing', async () => {
    const member = gateway.owners.addUser('u-member', 'member');
    gateway.owners.addUser('u-other', 'member');
    expect(await api('DELETE', '/api/v1/users/u-other', member)).toEqual({
      status: 403,
      body: { code: 'REMOTE_RELAY_FORBIDDEN', error: 'Only an admin of this relay can remove users; ask an admin to do it.' },
    });
    expect(callsOf('removeUser')).toEqual([]);
  });

  it("answers the owner's refusals with their codes: the last admin is 409, a name taken is 409", async () => {
    const admin = gateway.owners.addUser('u-admin', 'admin');
    gateway.owners.refusals.set('removeUser', new AppError('REMOTE_RELAY_LAST_ADMIN', 'failed_precondition', 'Ada is the only admin.'));
    expect(await api('DELETE', '/api/v1/users/u-x', admin)).toEqual({
      status: 409,
      body: { code: 'REMOTE_RELAY_LAST_ADMIN', error: 'Ada is the only admin.' },
    });
    gateway.owners.refusals.set('createUser', new AppError('REMOTE_RELAY_USER_EXISTS', 'already_exists', 'A user named "Ada" exists already.'));
    expect((await api('POST', '/api/v1/users', admin, { name: 'ada' })).body.code).toBe('REMOTE_RELAY_USER_EXISTS');
    expect((await api('POST', '/api/v1/users', admin, { name: 'ada' })).status).toBe(409);
  });
});

describe('/api/v1/users/:id/token', () => {
  it('rotates your own token: the new one works once answered, the old one is refused', async () => {
    const old = gateway.owners.addUser('u-bob', 'member');
    const rotated = await api('POST', '/api/v1/users/u-bob/token', old);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ user: { id: 'u-bob' }, token: expect.stringMatching(/^ru_/) });
    expect((await api('GET', '/api/v1/me', old)).status).toBe(401);
    expect((await api('GET', '/api/v1/me', rotated.body.token)).body.user.id).toBe('u-bob');
  });

  it("lets an admin revoke another user's token, and refuses a member that", async () => {
    const admin = gateway.owners.addUser('u-admin', 'admin');
    const member = gateway.owners.addUser('u-member', 'member');
    expect(await api('DELETE', '/api/v1/users/u-admin/token', member)).toEqual({
      status: 403,
      body: { code: 'REMOTE_RELAY_FORBIDDEN', error: "Only an admin of this relay can change another user's token; ask an admin to do it." },
    });
    expect(callsOf('rotateUserToken')).toEqual([]);
    expect(await api('DELETE', '/api/v1/users/u-member/token', admin)).toEqual({ status: 200, body: { user: { id: 'u-member' }, revoked: true } });
    expect(callsOf('rotateUserToken')).toEqual([{ userId: 'u-member', revoke: true }]);
    expect((await api('GET', '/api/v1/me', member)).status).toBe(401);
  });
});

describe('/api/v1/sessions/:id/token', () => {
  it("rotates and revokes a session's token for its user; another user's session is 404", async () => {
    const ada = gateway.owners.addUser('u-ada', 'member');
    const bob = gateway.owners.addUser('u-bob', 'member');
    const { session, token: old } = gateway.owners.addAgentSession('u-ada');

    expect((await api('POST', `/api/v1/sessions/${session.id}/token`, bob)).body.code).toBe('REMOTE_RELAY_NOT_FOUND');
    const rotated = await api('POST', `/api/v1/sessions/${session.id}/token`, ada);
    expect(rotated).toEqual({ status: 200, body: { session: { id: session.id }, token: expect.any(String) } });
    expect(callsOf('rotateSessionToken')).toContainEqual({ userId: 'u-ada', sessionId: session.id, revoke: false });
    expect(gateway.owners.tokens.has(old)).toBe(false);

    expect(await api('DELETE', `/api/v1/sessions/${session.id}/token`, ada)).toEqual({ status: 200, body: { session: { id: session.id }, revoked: true } });
    expect(gateway.owners.tokens.has(rotated.body.token)).toBe(false);
  });
});
