// Roles in the user API through the real gateway app and its session client, in front of the fake owners:
// what is relay-wide (relay settings, pairings, users) is for admins, a member gets 403 REMOTE_RELAY_FORBIDDEN
// and nothing reaches the owner; reading stays open; admins list and add users; anyone asks who they are.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;
let adminToken: string;
let memberToken: string;

beforeAll(async () => {
  gateway = await startGateway('desk');
  adminToken = gateway.owners.addUser('u-admin', 'admin');
  memberToken = gateway.owners.addUser('u-member', 'member');
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

const callsOf = (method: string) => gateway.owners.calls.filter((call) => call.method === method);

describe('relay-wide writes are for admins', () => {
  it.each([
    ['PATCH', '/api/v1/settings', { agent_sessions_enabled: false }, "change the relay's settings"],
    ['PUT', '/api/v1/pairing-settings', { accept_prompts: false }, "change whether other relays' agents may send prompts"],
    ['POST', '/api/v1/pairing-codes', undefined, 'make pairing codes'],
    ['POST', '/api/v1/pairings', { url: 'https://build-box.example.com', code: 'ABCD-EFGH-JKMN' }, 'pair with another relay'],
    ['PATCH', '/api/v1/pairings/build-box', { level: 'full' }, "change what a paired relay's agents may do"],
    ['DELETE', '/api/v1/pairings/build-box', undefined, 'unpair a relay'],
    ['POST', '/api/v1/users', { name: 'Eve' }, 'add users'],
    ['GET', '/api/v1/users', undefined, "list the relay's users"],
  ])('refuses a member %s %s with 403 REMOTE_RELAY_FORBIDDEN and changes nothing', async (method, path, body, what) => {
    const answer = await api(method, path, memberToken, body);
    expect(answer).toEqual({ status: 403, body: { code: 'REMOTE_RELAY_FORBIDDEN', error: `Only an admin of this relay can ${what}; ask an admin to do it.` } });
    expect(gateway.owners.writes()).toEqual([]);
    expect(callsOf('updateRelaySettings')).toEqual([]);
    expect(callsOf('createUser')).toEqual([]);
  });

  it('lets a member read the relay settings and the pairing setting', async () => {
    expect((await api('GET', '/api/v1/settings', memberToken)).status).toBe(200);
    expect(await api('GET', '/api/v1/pairing-settings', memberToken)).toEqual({ status: 200, body: { accept_prompts: true } });
  });

  it("lets an admin change the relay's settings", async () => {
    const patched = await api('PATCH', '/api/v1/settings', adminToken, { agent_sessions_enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body.settings.agentSessionsEnabled).toBe(false);
    expect(callsOf('updateRelaySettings').map((call) => call.request)).toEqual([{ agentSessionsEnabled: false }]);
  });
});

describe('/api/v1/me', () => {
  it('tells each user their id, name and role', async () => {
    expect(await api('GET', '/api/v1/me', memberToken)).toEqual({ status: 200, body: { user: { id: 'u-member', name: 'u-member', role: 'member' } } });
    expect(await api('GET', '/api/v1/me', adminToken)).toEqual({ status: 200, body: { user: { id: 'u-admin', name: 'u-admin', role: 'admin' } } });
  });

  it("refuses a session's token like the rest of the user API", async () => {
    const { token } = gateway.owners.addAgentSession('u-admin');
    expect((await api('GET', '/api/v1/me', token)).body.code).toBe('REMOTE_RELAY_FORBIDDEN');
  });
});

describe('/api/v1/users', () => {
  it('adds a member by default and an admin when asked, answering the token once; the list never shows tokens', async () => {
    const added = await api('POST', '/api/v1/users', adminToken, { name: '  Bob ' });
    expect(added.status).toBe(201);
    expect(added.body.user).toMatchObject({ name: 'Bob', role: 'member' });
    expect(added.body.token).toMatch(/^ru_/);
    const admin = await api('POST', '/api/v1/users', adminToken, { name: 'Cy', role: 'admin' });
    expect(admin.body.user).toMatchObject({ name: 'Cy', role: 'admin' });
    expect(callsOf('createUser').map((call) => call.request)).toEqual([{ name: 'Bob' }, { name: 'Cy', role: 'admin' }]);

    // The new token works at once, with the role it was given.
    expect((await api('GET', '/api/v1/me', added.body.token)).body.user).toEqual({ id: added.body.user.id, name: 'Bob', role: 'member' });

    const listed = await api('GET', '/api/v1/users', adminToken);
    expect(listed.status).toBe(200);
    expect(listed.body.users.map((user: { name: string; role: string }) => [user.name, user.role])).toEqual(
      expect.arrayContaining([
        ['u-admin', 'admin'],
        ['u-member', 'member'],
        ['Bob', 'member'],
        ['Cy', 'admin'],
      ]),
    );
    expect(Object.keys(listed.body.users[0]).sort()).toEqual(['createdAt', 'id', 'name', 'role']);
    expect(JSON.stringify(listed.body)).not.toContain(added.body.token);
  });

  it.each([
    ['no name', {}, "name (the new user's name) is required"],
    ['an empty name', { name: '   ' }, 'name must not be empty'],
    ['an unknown role', { name: 'Dee', role: 'owner' }, 'role must be one of: admin, member'],
    ['an unknown field', { name: 'Dee', token: 'x' }, 'token is not a field; give name and optionally role'],
    ['a body that is not an object', [1], 'the body must be a JSON object, for example {"name": "Ada", "role": "member"}'],
  ])('answers 400 for %s and creates nobody', async (_label, body, error) => {
    expect(await api('POST', '/api/v1/users', adminToken, body)).toEqual({ status: 400, body: { code: 'REMOTE_RELAY_INVALID_INPUT', error } });
    expect(callsOf('createUser')).toEqual([]);
  });
});
