// A team's users end to end: the relay's first user is its admin; the admin adds a member with `relay users add`
// (the token printed once works at once); `relay whoami` tells each their role; the member reads the relay's
// settings and pairings but is refused (403 REMOTE_RELAY_FORBIDDEN) changing them or adding users, with nothing
// changed; the admin's changes still go through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRelayCli } from '../harness/relay-cli.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { RelayUser } from '../harness/relay-user.ts';

let relay: Relay;
let admin: RelayUser;

/** Runs the real `relay` CLI against this relay with `token`. */
const cli = (token: string, ...args: string[]) => runRelayCli(relay, token, ...args);

beforeAll(async () => {
  relay = await startRelay({ name: 'desk' });
  admin = new RelayUser(relay, relay.userToken);
});

afterAll(async () => {
  await admin?.close();
  await relay?.stop();
});

describe("a team's users", () => {
  it('the first user is the admin; a member added with relay users add is refused relay-wide changes', async () => {
    const whoami = await cli(admin.token, 'whoami', '--json');
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout).user).toMatchObject({ name: 'e2e user', role: 'admin' });

    const added = await cli(admin.token, 'users', 'add', 'Bob');
    expect(added.code, added.stderr).toBe(0);
    const lines = added.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Added Bob \(member\), id \S+\.$/);
    expect(lines[2]).toContain('shown only this once');
    const bobToken = /^Token: (\S+)$/.exec(lines[1]!)?.[1];
    expect(bobToken).toMatch(/^rly_u_/);
    const bob = new RelayUser(relay, bobToken!);

    expect((await cli(bobToken!, 'whoami')).stdout).toMatch(/^\S+ {2}Bob {2}member\n$/);
    const listed = await cli(admin.token, 'users');
    // An aligned table: ID, NAME, ROLE, SINCE.
    expect(listed.stdout).toMatch(/^\S+ {2}e2e user {2}admin {3}\S+$/m);
    expect(listed.stdout).toMatch(/^\S+ {2}Bob {7}member {2}\S+$/m);
    expect(listed.stdout).not.toContain(bobToken!);

    const forbidden = { code: 'REMOTE_RELAY_FORBIDDEN' };
    expect(await bob.api('PATCH', '/api/v1/settings', { agent_sessions_enabled: false })).toMatchObject({ status: 403, body: forbidden });
    expect(await bob.api('PUT', '/api/v1/pairing-settings', { accept_prompts: false })).toMatchObject({ status: 403, body: forbidden });
    expect(await bob.api('POST', '/api/v1/pairing-codes')).toMatchObject({ status: 403, body: forbidden });
    expect(await bob.api('POST', '/api/v1/users', { name: 'Eve', role: 'admin' })).toMatchObject({ status: 403, body: forbidden });
    const refused = await cli(bobToken!, 'settings', '--agent-sessions', 'off');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Only an admin of this relay can change the relay');

    // Nothing changed, reading stays open to the member, and the admin's change goes through.
    expect((await bob.api('GET', '/api/v1/settings')).body.settings.agentSessionsEnabled).toBe(true);
    expect(await bob.api('GET', '/api/v1/pairing-settings')).toEqual({ status: 200, body: { accept_prompts: true } });
    expect((await admin.api('GET', '/api/v1/users')).body.users).toHaveLength(2);
    expect(await admin.api('PATCH', '/api/v1/settings', { task_quiet_minutes: 15 })).toMatchObject({ status: 200, body: { changed: ['task_quiet_minutes'] } });
    await bob.close();
  });
});
