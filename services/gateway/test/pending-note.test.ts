// The pending note on an external session's results (decisions.md, External sessions), at no round trip of its
// own where it can be had: list_sessions, read_session and relay_info ask their one read for it along
// (pending_for_session_id; the session service reads it after what the read marks read); another read that
// cannot change what waits reads it with GetPendingMessages while it runs; anything else after it. A hosted
// caller's calls read none, and a note that cannot be read costs the note, never the result.
import { Session, SessionState } from '@relay/proto/relay/session/v1/session';
import type { PendingMessages, ReadSessionRequest } from '@relay/proto/relay/session/v1/session_service';
import { createLogger } from '@relay/telemetry';
import { describe, expect, it } from 'vitest';
import { dispatchToolCall, type DispatchDeps } from '../src/app/relay-tool/dispatch.ts';

const logger = createLogger({ name: 'pending-note-test', level: 'silent' });
const SETTINGS = { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 };
const WAITING: PendingMessages = { count: 2, previews: ['[relay event] a', '[relay event] b'] };
const EXTERNAL = { userId: 'u1', sessionId: 'editor', external: true };
const HOSTED = { userId: 'u1', sessionId: 'worker' };
const channel = { signal: new AbortController().signal, progress: async () => undefined };

const session = (id: string): Session => Session.fromPartial({ id, title: 'Editor', state: SessionState.SESSION_STATE_IDLE, messageCount: 2 });

/**
 * Owners that log each call (with the note it asked for along) and answer WAITING to whoever asks for the note;
 * `held` keeps relay_info's read (usage reads it) open until released. `failing` makes the reads fail.
 */
function owners(options: { pending?: () => Promise<PendingMessages | undefined>; failing?: boolean } = {}) {
  const log: string[] = [];
  const pending = options.pending ?? (async () => WAITING);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const along = async (what: string, sessionId: string | undefined) => {
    log.push(sessionId === undefined ? what : `${what} (note along for ${sessionId})`);
    if (options.failing) throw new Error(`${what} broke`);
    return sessionId === undefined ? undefined : pending();
  };
  const sessions = {
    getRelaySettings: async () => ({ settings: SETTINGS }),
    listSessions: async (request: { pendingForSessionId?: string }) => ({
      sessions: [session('editor')],
      pending: await along('listSessions', request.pendingForSessionId),
    }),
    readSession: async (request: ReadSessionRequest) => ({
      session: session(request.sessionId),
      messages: [],
      inFlight: '',
      pendingQuestions: [],
      groupMembers: [],
      neverAskedAbout: true,
      askMark: 0,
      pending: await along(`readSession ${request.sessionId}`, request.pendingForSessionId),
    }),
    getRelayInfo: async (request: { withoutUsage: boolean; pendingForSessionId?: string }) => {
      const note = await along(request.withoutUsage ? 'getRelayInfo' : 'getRelayInfo with usage', request.pendingForSessionId);
      if (!request.withoutUsage) await held;
      return {
        providers: [],
        defaultCwd: '/home/dev',
        recentCwds: [],
        modes: [],
        groups: [],
        groupsTotal: 0,
        settings: undefined,
        usage: undefined,
        pending: note,
      };
    },
    getPendingMessages: async () => {
      log.push('getPendingMessages');
      return { pending: await pending() };
    },
    holdExternalCall: async () => ({ leaseMs: 60_000 }),
    renewExternalCalls: async () => ({ leaseMs: 60_000, gone: [] }),
    releaseExternalCall: async () => ({}),
  };
  const deps = {
    relayName: 'desk',
    openUrlBase: undefined,
    sessions,
    pairing: { listPairedRelays: async () => ({ relays: [] }), getPairingSettings: async () => ({ acceptPrompts: true }) },
    questions: { listAsks: async () => ({ asks: [] }) },
    logger,
  } as unknown as DispatchDeps;
  return { deps, log, release: () => release() };
}

const NOTE = { count: 2, first: WAITING.previews, read: expect.stringContaining('read_session on session editor') };

describe('the pending note of an external session', () => {
  it.each([
    ['list_sessions', {}, 'listSessions'],
    ['relay_info', {}, 'getRelayInfo'],
    ['read_session of another session', { session: 'other' }, 'readSession other'],
    ['read_session of its own conversation', { session: 'editor', last: 5 }, 'readSession editor'],
  ])('comes along with the one read of %s', async (name, args, read) => {
    const { deps, log, release } = owners();
    release();
    const action = name.split(' ')[0];
    expect(await dispatchToolCall({ action, relay: 'this', ...args }, EXTERNAL, deps, channel)).toMatchObject({ ok: true, pending: NOTE });
    expect(log).toEqual([`${read} (note along for editor)`]);
  });

  it('is read while a read that asks nothing along runs (usage)', async () => {
    const { deps, log, release } = owners();
    const result = dispatchToolCall({ action: 'usage', relay: 'this' }, EXTERNAL, deps, channel);
    await expect.poll(() => [...log].sort()).toEqual(['getPendingMessages', 'getRelayInfo with usage']);
    release();
    expect(await result).toMatchObject({ ok: true, pending: NOTE });
  });

  it('is left off when nothing waits; a read that failed leaves it to GetPendingMessages, a note that cannot be read costs the note', async () => {
    const nothing = owners({ pending: async () => ({ count: 0, previews: [] }) });
    const quiet = await dispatchToolCall({ action: 'list_sessions', relay: 'this' }, EXTERNAL, nothing.deps, channel);
    expect(quiet.ok).toBe(true);
    expect(quiet).not.toHaveProperty('pending');
    expect(nothing.log).toEqual(['listSessions (note along for editor)']);

    const failed = owners({ failing: true });
    expect(await dispatchToolCall({ action: 'list_sessions', relay: 'this' }, EXTERNAL, failed.deps, channel)).toMatchObject({ ok: false, pending: NOTE });
    expect(failed.log).toEqual(['listSessions (note along for editor)', 'getPendingMessages']);

    const unreadable = owners({ pending: async () => Promise.reject(new Error('session service away')) });
    unreadable.release();
    const result = await dispatchToolCall({ action: 'usage', relay: 'this' }, EXTERNAL, unreadable.deps, channel);
    expect(result.ok).toBe(true);
    expect(result).not.toHaveProperty('pending');
  });

  it("is never read for a hosted session's agent", async () => {
    const { deps, log, release } = owners();
    release();
    for (const action of ['list_sessions', 'usage']) {
      const result = await dispatchToolCall({ action, relay: 'this' }, HOSTED, deps, channel);
      expect(result).not.toHaveProperty('pending');
    }
    expect(log).toEqual(['listSessions', 'getRelayInfo with usage']);
  });
});
