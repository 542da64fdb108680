// The pending note on an external session's results (decisions.md, External sessions): read with one
// GetPendingMessages per call — alongside an action that cannot change what waits for the caller, after one
// that can (reading its own conversation marks what it read); a hosted caller's calls read none, and a note
// that cannot be read costs the note, never the result.
import { createLogger } from '@relay/telemetry';
import { describe, expect, it } from 'vitest';
import { Session, SessionState } from '@relay/proto/relay/session/v1/session';
import type { PendingMessages, ReadSessionResponse } from '@relay/proto/relay/session/v1/session_service';
import { dispatchToolCall, type DispatchDeps } from '../src/relay-tool/dispatch.ts';

const logger = createLogger({ name: 'pending-note-test', level: 'silent' });
const SETTINGS = { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 };
const WAITING: PendingMessages = { count: 2, previews: ['[relay event] a', '[relay event] b'] };
const EXTERNAL = { userId: 'u1', sessionId: 'editor', external: true };
const channel = { signal: new AbortController().signal, progress: async () => undefined };

const session = (id: string): Session => Session.fromPartial({ id, title: 'Editor', state: SessionState.SESSION_STATE_IDLE, messageCount: 2 });

/** Owners that record when each read began and ended; `listed` holds list_sessions until it is resolved. */
function owners(pending: () => Promise<PendingMessages | undefined> = async () => WAITING) {
  const log: string[] = [];
  let release: () => void = () => undefined;
  const listed = new Promise<void>((resolve) => {
    release = resolve;
  });
  const sessions = {
    getRelaySettings: async () => ({ settings: SETTINGS }),
    listSessions: async () => {
      log.push('listSessions began');
      await listed;
      log.push('listSessions ended');
      return { sessions: [session('editor')] };
    },
    readSession: async (): Promise<ReadSessionResponse> => {
      log.push('readSession');
      return { session: session('editor'), messages: [], inFlight: '', pendingQuestions: [], groupMembers: [] };
    },
    getPendingMessages: async () => {
      log.push('getPendingMessages');
      return { pending: await pending() };
    },
    holdExternalCall: async () => ({ leaseMs: 60_000 }),
    releaseExternalCall: async () => ({}),
  };
  const deps = {
    relayName: 'desk',
    openUrlBase: undefined,
    sessions,
    pairing: { listPairedRelays: async () => ({ relays: [] }) },
    questions: { listAsks: async () => ({ asks: [] }) },
    logger,
  } as unknown as DispatchDeps;
  return { deps, log, release: () => release() };
}

describe('the pending note of an external session', () => {
  it('is read while list_sessions runs, and carried on its result', async () => {
    const { deps, log, release } = owners();
    const result = dispatchToolCall({ action: 'list_sessions', relay: 'this' }, EXTERNAL, deps, channel);
    await expect.poll(() => [...log].sort()).toEqual(['getPendingMessages', 'listSessions began']);
    release();
    expect(await result).toMatchObject({ ok: true, pending: { count: 2, first: WAITING.previews, read: expect.stringContaining('read_session on session editor') } });
  });

  it('is read after a read_session of its own conversation, which marks what it read', async () => {
    const { deps, log } = owners();
    expect(await dispatchToolCall({ action: 'read_session', relay: 'this', session: 'editor', last: 5 }, EXTERNAL, deps, channel)).toMatchObject({
      ok: true,
      pending: { count: 2 },
    });
    expect(log).toEqual(['readSession', 'getPendingMessages']);
  });

  it('is left off when nothing waits, and when it cannot be read', async () => {
    for (const pending of [async () => ({ count: 0, previews: [] }), async () => Promise.reject(new Error('session service away'))]) {
      const { deps, release } = owners(pending);
      release();
      const result = await dispatchToolCall({ action: 'list_sessions', relay: 'this' }, EXTERNAL, deps, channel);
      expect(result.ok).toBe(true);
      expect(result).not.toHaveProperty('pending');
    }
  });

  it("is never read for a hosted session's agent", async () => {
    const { deps, log, release } = owners();
    release();
    const result = await dispatchToolCall({ action: 'list_sessions', relay: 'this' }, { userId: 'u1', sessionId: 'worker' }, deps, channel);
    expect(result).not.toHaveProperty('pending');
    expect(log).not.toContain('getPendingMessages');
  });
});
