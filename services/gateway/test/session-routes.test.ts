// The user's side of a session in /api/v1 (stop, archive, unarchive, rename, regroup) and GET /api/v1/usage,
// on the real app (Fastify inject) in front of an in-process fake of the session port.
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/adapters/http/build-app.ts';
import { SessionState, type Session } from '@relay/proto/relay/session/v1/session';
import type { UpdateSessionRequest } from '@relay/proto/relay/session/v1/session_service';
import type { PairingClient, QuestionClient, SessionClient } from '../src/app/ports.ts';

const USER_TOKEN = 'rly_u_good';
const SESSION_TOKEN = 'rly_s_good';

function fakeSession(fields: Partial<Session> = {}): Session {
  return {
    id: '3f9c2a1e-0000-4000-8000-000000000001',
    title: 'Review',
    provider: 'script',
    model: 'script-1',
    state: SessionState.SESSION_STATE_IDLE,
    cwd: '/home/dev',
    mode: 'agent',
    archived: false,
    messageCount: 0,
    lastActivityAt: undefined,
    tasks: [],
    ...fields,
  } as Session;
}

function build() {
  const session = fakeSession();
  const calls: { method: string; args: unknown[] }[] = [];
  const mine = (userId: string, id: string) => {
    if (userId !== 'u1' || id !== session.id) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `No session ${id} on this relay.`);
  };
  const sessions = {
    async authenticate({ token }: { token: string }) {
      if (token === USER_TOKEN) return { caller: { userId: 'u1', sessionId: '' }, role: 'member', external: false };
      if (token === SESSION_TOKEN) return { caller: { userId: 'u1', sessionId: session.id }, role: 'member', external: false };
      throw new AppError('UNAUTHENTICATED', 'unauthenticated', 'unknown token');
    },
    async stopTurn(request: { userId: string; callerSessionId: string; sessionId: string }) {
      calls.push({ method: 'stopTurn', args: [request] });
      mine(request.userId, request.sessionId);
      return { stopRequested: true };
    },
    async archiveSession(request: { userId: string; sessionId: string }) {
      calls.push({ method: 'archiveSession', args: [request] });
      mine(request.userId, request.sessionId);
      session.archived = true;
      return { session: { ...session } };
    },
    async unarchiveSession(request: { userId: string; sessionId: string }) {
      calls.push({ method: 'unarchiveSession', args: [request] });
      mine(request.userId, request.sessionId);
      session.archived = false;
      return { session: { ...session } };
    },
    async updateSession(input: UpdateSessionRequest) {
      calls.push({ method: 'updateSession', args: [input] });
      mine(input.userId, input.sessionId);
      if (input.title !== undefined) session.title = input.title;
      const changed = (['title', 'group'] as const).filter((field) => input[field] !== undefined);
      return {
        settings: {},
        changed,
        relaunched: undefined,
        groupCreated: input.group ? { id: 'g1', name: input.group, memberCount: 1 } : undefined,
        note: '',
        needsAllow: false,
      };
    },
    async readSession({ userId, sessionId: id }: { userId: string; sessionId: string }) {
      mine(userId, id);
      const long = { id: 'm-long', role: 'user', text: 'z'.repeat(20_000), provenance: undefined, createdAt: undefined, model: '' };
      return { session: { ...session }, messages: [long], inFlight: '', pendingQuestions: [], groupMembers: [], neverAskedAbout: true, askMark: 0 };
    },
    async getRelayInfo() {
      return { providers: [{ id: 'script', available: true, reason: '' }], usage: undefined };
    },
    // The series the session service answers: claude used something on the last day only (tokens as int64 strings).
    async getDailyUsage(request: { days: number }) {
      calls.push({ method: 'getDailyUsage', args: [request] });
      const days = ['2026-11-29', '2026-11-30'];
      const zero = { inputTokens: '0', outputTokens: '0', costUsd: 0, turns: 0 };
      return {
        days,
        providers: [
          {
            provider: 'claude',
            costTracked: true,
            days: [
              { day: days[0], ...zero },
              { day: days[1], inputTokens: '1200', outputTokens: '300', costUsd: 0.42, turns: 2 },
            ],
          },
        ],
      };
    },
  } as unknown as SessionClient;
  const app = buildApp({
    relayName: 'desk',
    publicUrl: 'https://desk.example.com',
    openUrlBase: undefined,
    sessions,
    pairing: {
      async listPairedRelays() {
        return { relays: [] };
      },
    } as unknown as PairingClient,
    questions: {
      async listAsks() {
        return { asks: [] };
      },
    } as unknown as QuestionClient,
    logger: createLogger({ name: 'session-routes-test', level: 'silent' }),
  });
  return { app, session, calls };
}

let current: FastifyInstance | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

function start() {
  const built = build();
  current = built.app;
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, token = USER_TOKEN) =>
    built.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  return { ...built, call };
}

describe('the user API: a session, the user side', () => {
  it('stops a turn as the user, not as an agent', async () => {
    const { call, session, calls } = start();
    const response = await call('POST', `/api/v1/sessions/${session.id}/stop`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ session: session.id, stopRequested: true });
    expect(calls).toEqual([{ method: 'stopTurn', args: [{ userId: 'u1', callerSessionId: '', sessionId: session.id }] }]);
  });

  it('archives and unarchives a session', async () => {
    const { call, session } = start();
    const archived = await call('POST', `/api/v1/sessions/${session.id}/archive`);
    expect(archived.statusCode).toBe(200);
    expect(archived.json().session).toMatchObject({ id: session.id, archived: true });
    const unarchived = await call('POST', `/api/v1/sessions/${session.id}/unarchive`);
    expect(unarchived.statusCode).toBe(200);
    expect(unarchived.json().session).toMatchObject({ id: session.id });
    expect(unarchived.json().session.archived).toBeUndefined();
  });

  it('renames and regroups through update_session as the user, and says what changed', async () => {
    const { call, session, calls } = start();
    const renamed = await call('PATCH', `/api/v1/sessions/${session.id}/settings`, { title: 'Release notes' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ session: { id: session.id, title: 'Release notes' }, changed: ['title'] });
    const grouped = await call('PATCH', `/api/v1/sessions/${session.id}/settings`, { group: 'Release' });
    expect(grouped.json()).toMatchObject({ changed: ['group'], groupCreated: { id: 'g1', name: 'Release' } });
    expect(calls.map((entry) => entry.args[0])).toEqual([
      expect.objectContaining({ userId: 'u1', callerSessionId: '', sessionId: session.id, title: 'Release notes', group: undefined, dryRun: false }),
      expect.objectContaining({ userId: 'u1', callerSessionId: '', sessionId: session.id, title: undefined, group: 'Release', dryRun: false }),
    ]);
  });

  it('refuses an empty change or title with REMOTE_RELAY_INVALID_INPUT before any call', async () => {
    const { call, session, calls } = start();
    for (const body of [{}, { title: '  ' }, { group: 7 }]) {
      const response = await call('PATCH', `/api/v1/sessions/${session.id}/settings`, body);
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('REMOTE_RELAY_INVALID_INPUT');
    }
    expect(calls).toEqual([]);
  });

  it("answers another user's or an unknown session with 404 REMOTE_RELAY_NOT_FOUND", async () => {
    const { call } = start();
    for (const verb of ['stop', 'archive', 'unarchive']) {
      const response = await call('POST', `/api/v1/sessions/3f9c2a1e-0000-4000-8000-00000000ffff/${verb}`);
      expect([response.statusCode, response.json().code]).toEqual([404, 'REMOTE_RELAY_NOT_FOUND']);
    }
  });

  it("refuses a session's token: these are the user's own", async () => {
    const { call, session, calls } = start();
    const response = await call('POST', `/api/v1/sessions/${session.id}/archive`, undefined, SESSION_TOKEN);
    expect([response.statusCode, response.json().code]).toEqual([403, 'REMOTE_RELAY_FORBIDDEN']);
    expect(calls).toEqual([]);
  });

  it('reads the whole of a message a session read cuts, and 404s a message it does not find', async () => {
    const { call, session } = start();
    const cut = await call('GET', `/api/v1/sessions/${session.id}`);
    expect(cut.json().messages[0]).toMatchObject({ id: 'm-long', truncated: true, length: 20_000 });
    expect(cut.json().messages[0].text).toHaveLength(8000);
    const whole = await call('GET', `/api/v1/sessions/${session.id}/messages/m-long`);
    expect(whole.statusCode).toBe(200);
    expect(whole.json().message.text).toBe('z'.repeat(20_000));
    expect(whole.json().message).not.toHaveProperty('truncated');
    const missing = await call('GET', `/api/v1/sessions/${session.id}/messages/m-none`);
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'REMOTE_RELAY_NOT_FOUND']);
  });

  it('shows the usage report, every provider not tracked when the session service keeps no accounting', async () => {
    const { call } = start();
    const response = await call('GET', '/api/v1/usage');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ providers: [{ provider: 'script', status: 'not_tracked', meters: [] }], claudeUsageLimitPaused: false });
  });

  it('shows usage over time: 30 days unless asked, tokens summed and as numbers', async () => {
    const { call, calls } = start();
    const response = await call('GET', '/api/v1/usage/daily');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      days: ['2026-11-29', '2026-11-30'],
      providers: [
        {
          provider: 'claude',
          costTracked: true,
          days: [
            { day: '2026-11-29', tokens: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 },
            { day: '2026-11-30', tokens: 1500, inputTokens: 1200, outputTokens: 300, costUsd: 0.42, turns: 2 },
          ],
        },
      ],
    });
    await call('GET', '/api/v1/usage/daily?days=7');
    expect(calls.filter((c) => c.method === 'getDailyUsage').map((c) => c.args[0])).toEqual([{ days: 30 }, { days: 7 }]);
  });

  it('refuses days out of range or not a whole number, without asking the session service', async () => {
    const { call, calls } = start();
    for (const days of ['0', '367', '2.5', 'week']) {
      const response = await call('GET', `/api/v1/usage/daily?days=${days}`);
      expect([response.statusCode, response.json().code]).toEqual([400, 'REMOTE_RELAY_INVALID_INPUT']);
    }
    expect(calls).toEqual([]);
  });

  it('answers usage over time only to a signed-in caller', async () => {
    const { app } = start();
    const response = await app.inject({ method: 'GET', url: '/api/v1/usage/daily', headers: { authorization: 'Bearer nope' } });
    expect(response.statusCode).toBe(401);
  });
});
