// This relay's settings end to end: the user reads and changes them through /api/v1/settings and the `relay
// settings` CLI, the change is stored by the session service and takes effect for agents at once (Longest wait in
// list_relays; switching agent sessions off takes relay_tool away), and a bad value is refused naming its field
// with nothing changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRelayCli } from '../harness/relay-cli.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { callTool as call, RelayUser } from '../harness/relay-user.ts';

let relay: Relay;
let user: RelayUser;

/** Runs the real `relay` CLI against this relay as the user. */
const cli = (...args: string[]) => runRelayCli(relay, user.token, ...args);

beforeAll(async () => {
  relay = await startRelay({ name: 'desk' });
  user = new RelayUser(relay, relay.userToken);
});

afterAll(async () => {
  await user?.close();
  await relay?.stop();
});

describe('relay settings', () => {
  it('shows the settings seeded at the first start', async () => {
    expect(await user.api('GET', '/api/v1/settings')).toEqual({
      status: 200,
      body: { settings: { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 } },
    });
  });

  it('a changed Longest wait is what list_relays shows agents at once', async () => {
    const agent = await user.externalAgent('Reads limits');
    const changed = await user.api('PATCH', '/api/v1/settings', { max_wait_seconds: 900 });
    expect(changed).toMatchObject({ status: 200, body: { settings: { maxWaitSeconds: 900 }, changed: ['max_wait_seconds'] } });
    expect((await call(agent, { action: 'list_relays' })).limits).toEqual({ maxWaitSeconds: 900, maxActiveSessions: 4 });
  });

  it('refuses a wait outside 120–3600 s, naming the field, and changes nothing', async () => {
    const refused = await user.api('PATCH', '/api/v1/settings', { max_wait_seconds: 7200, max_turn_minutes: 30 });
    expect(refused).toEqual({
      status: 400,
      body: { code: 'REMOTE_RELAY_INVALID_INPUT', error: 'max_wait_seconds must be a whole number of seconds from 120 to 3600' },
    });
    expect((await user.api('GET', '/api/v1/settings')).body.settings).toMatchObject({ maxWaitSeconds: 900, maxTurnMinutes: 60 });
  });

  it('switching agent sessions off takes relay_tool away from agents, and on again gives it back', async () => {
    const agent = await user.externalAgent('Loses the tool');
    expect((await user.api('PATCH', '/api/v1/settings', { agent_sessions_enabled: false })).status).toBe(200);
    expect((await agent.client.listTools()).tools).toEqual([]);
    expect(await call(agent, { action: 'list_sessions', relay: 'this' })).toMatchObject({ ok: false, code: 'REMOTE_RELAY_DISABLED' });
    expect((await user.api('PATCH', '/api/v1/settings', { agent_sessions_enabled: true })).status).toBe(200);
    expect((await agent.client.listTools()).tools.map((tool) => tool.name)).toEqual(['relay_tool']);
    expect(await call(agent, { action: 'list_sessions', relay: 'this' })).toMatchObject({ ok: true });
  });

  it('relay settings in the CLI shows them, changes them and says what changed; a bad value exits 1 with the reason', async () => {
    const shown = await cli('settings');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Longest wait per tool call: 900 s');
    const changed = await cli('settings', '--task-quiet', '15', '--max-turn', '60');
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('A running task counts as quiet after: 15 min without output');
    expect(changed.stdout).toContain('Changed: task_quiet_minutes.');
    expect((await user.api('GET', '/api/v1/settings')).body.settings.taskQuietMinutes).toBe(15);
    const refused = await cli('settings', '--task-quiet', '0');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('relay: task_quiet_minutes must be a whole number of minutes from 1 to 1440');
    expect((await user.api('GET', '/api/v1/settings')).body.settings.taskQuietMinutes).toBe(15);
  });
});
