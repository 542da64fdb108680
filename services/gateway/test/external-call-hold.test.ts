// An external session's call is held as its running turn while it is in flight: held after its first second,
// renewed within each lease while the call goes on, released at its end; a call that answers within its first
// second costs nothing; a failing session service costs only the mark.
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { HOLD_AFTER_MS, holdExternalCall } from '../src/app/relay-tool/external-call-hold.ts';

const logger = createLogger({ name: 'external-call-hold-test', level: 'silent' });

function owner(leaseMs = 60_000, failing = false) {
  const log: string[] = [];
  return {
    log,
    async holdExternalCall({ sessionId, callId }: { sessionId: string; callId: string }) {
      log.push(`hold ${sessionId} ${callId}`);
      if (failing) throw new Error('session service down');
      return { leaseMs };
    },
    async releaseExternalCall({ sessionId, callId }: { sessionId: string; callId: string }) {
      log.push(`release ${sessionId} ${callId}`);
      if (failing) throw new Error('session service down');
      return {};
    },
  };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it('holds one call id after its first second, renews it every third of the lease, and releases it at the end', async () => {
  const sessions = owner();
  const release = holdExternalCall(sessions, 'editor', logger);
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS - 1);
  expect(sessions.log).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  const [first] = sessions.log;
  const callId = first!.split(' ')[2]!;
  expect(first).toBe(`hold editor ${callId}`);
  await vi.advanceTimersByTimeAsync(19_999);
  expect(sessions.log).toHaveLength(1);
  await vi.advanceTimersByTimeAsync(1);
  await vi.advanceTimersByTimeAsync(20_000);
  expect(sessions.log).toEqual([`hold editor ${callId}`, `hold editor ${callId}`, `hold editor ${callId}`]);
  await release();
  await vi.advanceTimersByTimeAsync(120_000);
  expect(sessions.log.slice(3)).toEqual([`release editor ${callId}`]);
});

it('renews on the relay clock, which the lease is measured on (a virtual clock may run faster than real time)', async () => {
  const sessions = owner();
  const clock = new ManualClock('2026-12-03T10:00:00Z');
  const release = holdExternalCall(sessions, 'editor', logger, clock);
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  clock.advance(20_000);
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.log).toHaveLength(2);
  await release();
  clock.advance(60_000);
  expect(sessions.log.map((line) => line.split(' ')[0])).toEqual(['hold', 'hold', 'release']);
});

it('gives every call its own id', async () => {
  const sessions = owner();
  const releases = [holdExternalCall(sessions, 'editor', logger), holdExternalCall(sessions, 'editor', logger)];
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  await Promise.all(releases.map((release) => release()));
  const ids = new Set(sessions.log.map((line) => line.split(' ')[2]));
  expect(ids.size).toBe(2);
});

it('a call that answers within its first second never reaches the session service', async () => {
  const sessions = owner();
  const release = holdExternalCall(sessions, 'editor', logger);
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS - 1);
  await release();
  await vi.advanceTimersByTimeAsync(120_000);
  expect(sessions.log).toEqual([]);
});

it('a call that ends before its hold was answered still releases after it', async () => {
  let answer: (value: { leaseMs: number }) => void = () => undefined;
  const log: string[] = [];
  const sessions = {
    holdExternalCall: () => {
      log.push('hold');
      return new Promise<{ leaseMs: number }>((resolve) => (answer = resolve));
    },
    releaseExternalCall: async () => {
      log.push('release');
      return {};
    },
  };
  const release = holdExternalCall(sessions, 'editor', logger);
  await vi.advanceTimersByTimeAsync(HOLD_AFTER_MS);
  const released = release();
  await vi.advanceTimersByTimeAsync(0);
  expect(log).toEqual(['hold']);
  answer({ leaseMs: 60_000 });
  await released;
  expect(log).toEqual(['hold', 'release']);
});

it('a session service that fails costs the mark, never the call, and the hold is tried again while the call goes on', async () => {
  const sessions = owner(60_000, true);
  const release = holdExternalCall(sessions, 'editor', logger);
  await vi.advanceTimersByTimeAsync(60_000);
  await expect(release()).resolves.toBeUndefined();
  const calls = sessions.log.map((line) => line.split(' ')[0]);
  expect(calls.at(-1)).toBe('release');
  expect(calls.slice(0, -1).every((call) => call === 'hold')).toBe(true);
  expect(calls.length - 1).toBeGreaterThan(1);
});
