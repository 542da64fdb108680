// An external session's call in flight is its running turn while its hold lasts (decisions.md, External sessions):
// the rule at an explicit `now`, and who may hold a call.
import { isAppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { EXTERNAL_CALL_LEASE_MS, stateWithCalls } from '../src/domain/external/external-calls.ts';
import { holdExternalCall, renewExternalCalls, withCallsInFlight, type ExternalCallStore } from '../src/app/external/external-calls.ts';
import type { Session } from '../src/domain/sessions/session.ts';

const NOW = new Date('2026-12-03T10:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

/** The holds as rows, the way the table keeps them. */
function memoryCalls(): ExternalCallStore & { rows: Map<string, { sessionId: string; expiresAt: Date }> } {
  const rows = new Map<string, { sessionId: string; expiresAt: Date }>();
  return {
    rows,
    async hold(sessionId, callId, expiresAt, now) {
      for (const [key, row] of rows) if (row.sessionId === sessionId && row.expiresAt <= now) rows.delete(key);
      rows.set(`${sessionId}/${callId}`, { sessionId, expiresAt });
    },
    async renew(calls, expiresAt, now) {
      return calls.filter((call) => {
        const row = rows.get(`${call.sessionId}/${call.callId}`);
        if (row === undefined || row.expiresAt <= now) return true;
        row.expiresAt = expiresAt;
        return false;
      });
    },
    async release(sessionId, callId) {
      rows.delete(`${sessionId}/${callId}`);
    },
    async latestExpiries(sessionIds) {
      const latest = new Map<string, Date>();
      for (const row of rows.values()) {
        if (!sessionIds.includes(row.sessionId)) continue;
        const seen = latest.get(row.sessionId);
        if (seen === undefined || seen < row.expiresAt) latest.set(row.sessionId, row.expiresAt);
      }
      return latest;
    },
  };
}

const sessions = new Map<string, Pick<Session, 'id' | 'origin'>>([
  ['editor', { id: 'editor', origin: 'external' }],
  ['worker', { id: 'worker', origin: 'hosted' }],
]);
const store = { findSession: async (id: string) => sessions.get(id) as Session | undefined };

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('stateWithCalls', () => {
  it('is running_turn while a hold has not lapsed, and the stored state from its expiry on', () => {
    expect(stateWithCalls('idle', at(1), NOW)).toBe('running_turn');
    expect(stateWithCalls('idle', NOW, NOW)).toBe('idle');
    expect(stateWithCalls('idle', at(-1), NOW)).toBe('idle');
    expect(stateWithCalls('idle', undefined, NOW)).toBe('idle');
    expect(stateWithCalls('background_only', undefined, NOW)).toBe('background_only');
  });
});

describe('holdExternalCall', () => {
  it('holds the call for a lease from now; the session shows running_turn until the lease ends, then idle', async () => {
    const calls = memoryCalls();
    expect(await holdExternalCall({ store, calls }, { sessionId: 'editor', callId: 'c1' }, NOW)).toEqual({ leaseMs: EXTERNAL_CALL_LEASE_MS });
    const listed = [
      { id: 'editor', state: 'idle' as const },
      { id: 'worker', state: 'idle' as const },
    ];
    expect((await withCallsInFlight(calls, listed, NOW)).map((s) => s.state)).toEqual(['running_turn', 'idle']);
    expect((await withCallsInFlight(calls, listed, at(EXTERNAL_CALL_LEASE_MS - 1)))[0]!.state).toBe('running_turn');
    // A gateway that crashed never renews nor releases: the mark lapses by itself.
    expect((await withCallsInFlight(calls, listed, at(EXTERNAL_CALL_LEASE_MS)))[0]!.state).toBe('idle');
  });

  it('a renewal extends the hold; two calls at once keep it until both are released', async () => {
    const calls = memoryCalls();
    await holdExternalCall({ store, calls }, { sessionId: 'editor', callId: 'c1' }, NOW);
    await holdExternalCall({ store, calls }, { sessionId: 'editor', callId: 'c2' }, NOW);
    await holdExternalCall({ store, calls }, { sessionId: 'editor', callId: 'c1' }, at(30_000));
    const later = at(EXTERNAL_CALL_LEASE_MS + 1);
    expect((await withCallsInFlight(calls, [{ id: 'editor', state: 'idle' as const }], later))[0]!.state).toBe('running_turn');
    await calls.release('editor', 'c1');
    expect((await withCallsInFlight(calls, [{ id: 'editor', state: 'idle' as const }], NOW))[0]!.state).toBe('running_turn');
    await calls.release('editor', 'c2');
    expect((await withCallsInFlight(calls, [{ id: 'editor', state: 'idle' as const }], NOW))[0]!.state).toBe('idle');
  });

  it('a new hold clears the holds that lapsed (a crashed gateway leaves no rows behind for long)', async () => {
    const calls = memoryCalls();
    await holdExternalCall({ store, calls }, { sessionId: 'editor', callId: 'stale' }, NOW);
    await holdExternalCall({ store, calls }, { sessionId: 'editor', callId: 'fresh' }, at(EXTERNAL_CALL_LEASE_MS));
    expect([...calls.rows.keys()]).toEqual(['editor/fresh']);
  });

  it('refuses a hosted session (it has turns), an unknown one and an empty or overlong call id', async () => {
    const calls = memoryCalls();
    expect(await codeOf(holdExternalCall({ store, calls }, { sessionId: 'worker', callId: 'c1' }, NOW))).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(await codeOf(holdExternalCall({ store, calls }, { sessionId: 'nope', callId: 'c1' }, NOW))).toBe('REMOTE_RELAY_NOT_FOUND');
    expect(await codeOf(holdExternalCall({ store, calls }, { sessionId: 'editor', callId: '' }, NOW))).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(await codeOf(holdExternalCall({ store, calls }, { sessionId: 'editor', callId: 'x'.repeat(65) }, NOW))).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(calls.rows.size).toBe(0);
  });
});

describe('renewExternalCalls', () => {
  it('holds the calls in force a lease from now and answers the ones gone, which it does not hold again', async () => {
    const calls = memoryCalls();
    await holdExternalCall({ store, calls }, { sessionId: 'editor', callId: 'c1' }, NOW);
    const renewed = await renewExternalCalls(
      calls,
      {
        calls: [
          { sessionId: 'editor', callId: 'c1' },
          { sessionId: 'editor', callId: 'released' },
        ],
      },
      at(20_000),
    );
    expect(renewed).toEqual({ leaseMs: EXTERNAL_CALL_LEASE_MS, gone: [{ sessionId: 'editor', callId: 'released' }] });
    expect(calls.rows.get('editor/c1')?.expiresAt).toEqual(at(20_000 + EXTERNAL_CALL_LEASE_MS));
    expect(calls.rows.has('editor/released')).toBe(false);
  });

  it('refuses more than 1,000 calls and an empty or overlong call id, renewing none of them', async () => {
    const calls = memoryCalls();
    await holdExternalCall({ store, calls }, { sessionId: 'editor', callId: 'c1' }, NOW);
    const many = Array.from({ length: 1_001 }, () => ({ sessionId: 'editor', callId: 'c1' }));
    expect(await codeOf(renewExternalCalls(calls, { calls: many }, at(20_000)))).toBe('REMOTE_RELAY_INVALID_INPUT');
    for (const callId of ['', 'x'.repeat(65)]) {
      const batch = [
        { sessionId: 'editor', callId: 'c1' },
        { sessionId: 'editor', callId },
      ];
      expect(await codeOf(renewExternalCalls(calls, { calls: batch }, at(20_000)))).toBe('REMOTE_RELAY_INVALID_INPUT');
    }
    expect(calls.rows.get('editor/c1')?.expiresAt).toEqual(at(EXTERNAL_CALL_LEASE_MS));
  });
});
