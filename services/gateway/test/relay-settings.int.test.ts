// /api/v1/settings through the real gateway app and its session client, in front of the fake session service:
// reading and changing this relay's settings with a user's token, the 400s that name the bad field, and who may.
import { AppError } from '@relay/errors';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;
let userToken: string;

beforeAll(async () => {
  gateway = await startGateway('desk');
  userToken = gateway.owners.addUser('u1');
});

afterEach(() => {
  gateway.owners.reset();
});

afterAll(async () => {
  await gateway.close();
});

/** `token: null` sends no Authorization header. */
async function api(method: string, body?: unknown, token: string | null = userToken) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gateway.url}/api/v1/settings`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const updates = () => gateway.owners.calls.filter((call) => call.method === 'updateRelaySettings');

describe('/api/v1/settings', () => {
  it('shows the relay settings the session service owns', async () => {
    expect(await api('GET')).toEqual({
      status: 200,
      body: { settings: { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 } },
    });
  });

  it('changes the settings given and answers them with what changed; the change is what later reads see', async () => {
    const patched = await api('PATCH', { agent_sessions_enabled: false, max_wait_seconds: 900, task_quiet_minutes: 10 });
    expect(patched).toEqual({
      status: 200,
      body: {
        settings: { agentSessionsEnabled: false, maxWaitSeconds: 900, maxTurnMinutes: 60, taskQuietMinutes: 10 },
        changed: ['agent_sessions_enabled', 'max_wait_seconds'],
      },
    });
    expect(updates().map((call) => call.request)).toEqual([{ agentSessionsEnabled: false, maxWaitSeconds: 900, taskQuietMinutes: 10 }]);
    expect((await api('GET')).body.settings).toMatchObject({ agentSessionsEnabled: false, maxWaitSeconds: 900 });
  });

  it.each([
    [
      'an unknown setting',
      { max_wait: 900 },
      'max_wait is not a setting; the settings are agent_sessions_enabled, max_wait_seconds, max_turn_minutes, task_quiet_minutes',
    ],
    ['no setting at all', {}, 'give at least one of agent_sessions_enabled, max_wait_seconds, max_turn_minutes, task_quiet_minutes'],
    ['a switch that is not true or false', { agent_sessions_enabled: 'on' }, 'agent_sessions_enabled must be true or false'],
    ['a wait that is not a whole number', { max_wait_seconds: 90.5 }, 'max_wait_seconds must be a whole number of seconds'],
    ['a quiet setting given as text', { task_quiet_minutes: '15' }, 'task_quiet_minutes must be a whole number of minutes'],
    ['a body that is not an object', [1], 'the body must be a JSON object, for example {"agent_sessions_enabled": true, "max_wait_seconds": 900}'],
  ])('answers 400 naming the field for %s, and asks the session service nothing', async (_label, body, error) => {
    expect(await api('PATCH', body)).toEqual({ status: 400, body: { code: 'REMOTE_RELAY_INVALID_INPUT', error } });
    expect(updates()).toEqual([]);
  });

  it("passes on the session service's range refusal as 400 with its message, and nothing changes", async () => {
    const refusal = new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'max_wait_seconds must be a whole number of seconds from 120 to 3600', {
      details: { field: 'max_wait_seconds' },
    });
    gateway.owners.refusals.set('updateRelaySettings', refusal);
    expect(await api('PATCH', { max_wait_seconds: 60 })).toEqual({ status: 400, body: { code: 'REMOTE_RELAY_INVALID_INPUT', error: refusal.message } });
    expect((await api('GET')).body.settings.maxWaitSeconds).toBe(600);
  });

  it("answers 401 without a user token and 403 to a session's token, changing nothing", async () => {
    expect((await api('GET', undefined, null)).status).toBe(401);
    expect((await api('PATCH', { max_wait_seconds: 900 }, 'nonsense')).status).toBe(401);
    const { token } = gateway.owners.addAgentSession('u1');
    expect(await api('PATCH', { agent_sessions_enabled: false }, token)).toMatchObject({ status: 403, body: { code: 'REMOTE_RELAY_FORBIDDEN' } });
    expect(updates()).toEqual([]);
  });

  it('hides a fault of the session service behind 500 REMOTE_RELAY_INTERNAL', async () => {
    gateway.owners.failing.add('updateRelaySettings');
    expect(await api('PATCH', { max_turn_minutes: 30 })).toEqual({ status: 500, body: { code: 'REMOTE_RELAY_INTERNAL', error: 'internal error' } });
  });
});
