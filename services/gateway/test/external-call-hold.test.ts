// An external session's call is held as its running turn while it is in flight: held after its first second, its
// renewals sent with every other call's due in one RenewExternalCalls a second, released at its end; a call that
// answers within its first second costs nothing; a failing session service costs only the mark; a hold that is gone
// is held again.
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ExternalCallHolds, HOLD_AFTER_MS, RENEW_TICK_MS, holdExternalCall } from '../src/app/relay-tool/external-call-hold.ts';

const logger = createLogger({ name: 'external-call-hold-test', level: 'silent' });

type Ref = { sessionId: string; callId: string };

/** The session service's holds as the gateway sees them: a log of its calls, what fails, and the holds to call gone. */
function owner(leaseMs = 60_000) {
  const log: string[] = [];
  const failing = new Set<string>();
  const gone = new Set<string>();
  const refuse = (method: string) => {
    if (failing.has(method)) throw new Error('session service down');
  };
  return {
    log,
    failing,
    gone,
    async holdExternalCall({ sessionId, callId }: Ref) {
      log.push(`hold ${sessionId} ${callId}`);
      refuse('hold');
      gone.delete(callId);
      return { leaseMs };
    },
    async renewExternalCalls({ calls }: { calls: Ref[] }) {
      log.push(`renew ${calls.map((call) => call.sessionId).join(',')}`);
      refuse('renew');
      return { leaseMs, gone: calls.filter((call) => gone.has(call.callId)) };
    },
    async releaseExternalCall({ sessionId, callId }: Ref) {
      log.push(`release ${sessionId} ${callId}`);
      refuse('release');
      return {};
    },
  };
}

const methods = (log: string[]) => log.map((line) => line.split(' ')[0]);

let clock: ManualClock;
beforeEach(() => {
  vi.useFakeTimers();
  clock = new ManualClock('2026-12-07T10:00:00Z');
});
afterEach(() => vi.useRealTimers());

/** Moves the relay clock on by `ms`, a tick at a time, letting each tick's batch answer. */
async function pass(ms: number): Promise<void> {
  for (let passed = 0; passed < ms; passed += RENEW_TICK_MS) {
    clock.advance(Math.min(RENEW_TICK_MS, ms - passed));
    await vi.advanceTimersByTimeAsync(0);
  }
}

it('holds one call id after its first second, renews it every third of the lease in a batch, and releases it at the end', async () => {
  const sessions = owner();
  const release = new ExternalCallHolds(sessions, logger, clock).hold('editor');
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS - 1);
  expect(sessions.log).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  const callId = sessions.log[0]!.split(' ')[2]!;
  expect(sessions.log).toEqual([`hold editor ${callId}`]);
  await pass(19_000);
  expect(sessions.log).toHaveLength(1);
  await pass(1_000);
  await pass(20_000);
  expect(sessions.log).toEqual([`hold editor ${callId}`, 'renew editor', 'renew editor']);
  await release();
  await pass(120_000);
  expect(sessions.log.slice(3)).toEqual([`release editor ${callId}`]);
});

it('renews the calls due together in one RenewExternalCalls, each on its own schedule', async () => {
  const sessions = owner();
  const holds = new ExternalCallHolds(sessions, logger, clock);
  const releases = ['a', 'b', 'c'].map((session) => holds.hold(session));
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  await pass(5_000);
  const late = holds.hold('d');
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  await pass(15_000);
  // a, b and c held at 0 are due at 20 s; d held at 5 s at 25 s.
  expect(sessions.log.filter((line) => line.startsWith('renew'))).toEqual(['renew a,b,c']);
  await pass(5_000);
  expect(sessions.log.filter((line) => line.startsWith('renew'))).toEqual(['renew a,b,c', 'renew d']);
  await Promise.all([...releases, late].map((release) => release()));
  await pass(60_000);
  expect(methods(sessions.log).filter((method) => method === 'renew')).toHaveLength(2);
});

it('one process, one set of holds: calls of the same owner share the batch', async () => {
  const sessions = owner();
  const releases = [holdExternalCall(sessions, 'a', logger, clock), holdExternalCall(sessions, 'b', logger, clock)];
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  await pass(20_000);
  expect(sessions.log.filter((line) => line.startsWith('renew'))).toEqual(['renew a,b']);
  await Promise.all(releases.map((release) => release()));
  const ids = new Set(sessions.log.filter((line) => line.startsWith('release')).map((line) => line.split(' ')[2]));
  expect(ids.size).toBe(2);
});

it('a call that answers within its first second never reaches the session service', async () => {
  const sessions = owner();
  const release = new ExternalCallHolds(sessions, logger, clock).hold('editor');
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS - 1);
  await release();
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  await pass(120_000);
  expect(sessions.log).toEqual([]);
});

it('a call that ends before its hold was answered still releases after it, and is never renewed', async () => {
  let answer: (value: { leaseMs: number }) => void = () => undefined;
  const log: string[] = [];
  const sessions = {
    holdExternalCall: () => {
      log.push('hold');
      return new Promise<{ leaseMs: number }>((resolve) => (answer = resolve));
    },
    renewExternalCalls: async () => {
      log.push('renew');
      return { leaseMs: 60_000, gone: [] };
    },
    releaseExternalCall: async () => {
      log.push('release');
      return {};
    },
  };
  const release = new ExternalCallHolds(sessions, logger, clock).hold('editor');
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  const released = release();
  await vi.advanceTimersByTimeAsync(0);
  expect(log).toEqual(['hold']);
  answer({ leaseMs: 60_000 });
  await released;
  await pass(60_000);
  expect(log).toEqual(['hold', 'release']);
});

it('a session service that fails costs the mark, never the call: the hold is tried again, a failed batch is sent again the next second', async () => {
  const sessions = owner();
  sessions.failing.add('hold');
  const release = new ExternalCallHolds(sessions, logger, clock).hold('editor');
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  await pass(4_000);
  expect(methods(sessions.log)).toEqual(['hold', 'hold', 'hold']);
  sessions.failing.clear();
  await pass(2_000);
  sessions.failing.add('renew');
  await pass(20_000);
  const failedRenewals = methods(sessions.log).filter((method) => method === 'renew').length;
  expect(failedRenewals).toBe(1);
  await pass(3_000);
  expect(methods(sessions.log).filter((method) => method === 'renew').length).toBe(failedRenewals + 3);
  sessions.failing.clear();
  sessions.failing.add('release');
  await expect(release()).resolves.toBeUndefined();
  expect(methods(sessions.log).at(-1)).toBe('release');
});

it('holds a call whose hold is gone again with HoldExternalCall, then renews it in the batch', async () => {
  const sessions = owner();
  const release = new ExternalCallHolds(sessions, logger, clock).hold('editor');
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  const callId = sessions.log[0]!.split(' ')[2]!;
  sessions.gone.add(callId);
  await pass(20_000);
  expect(sessions.log).toEqual([`hold editor ${callId}`, 'renew editor', `hold editor ${callId}`]);
  await pass(20_000);
  expect(sessions.log.slice(3)).toEqual(['renew editor']);
  await release();
});
