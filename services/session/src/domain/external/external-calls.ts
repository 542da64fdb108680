import type { SessionState } from '../sessions/session.ts';

/** How long one hold lasts unless renewed: long enough for a loaded gateway's renewals, short for a stale mark. */
export const EXTERNAL_CALL_LEASE_MS = 60_000;

/**
 * How far past its lease a held call is announced (external_call_held's held_until, which the subscription service's
 * watches keep the call running until): a renewal announces the call again only once its lease reaches past what was
 * last announced, so a call renewed every third of its lease is announced about once a minute, and one answered
 * within a minute (the relay answers an external call by 50 s) only when it is held. A call whose gateway crashed
 * is seen working by the watches at most this long after its hold lapsed here (docs/adr/0050).
 */
export const HOLD_ANNOUNCED_PAST_LEASE_MS = 60_000;

/** What a hold or renewal at lease end `expiresAt` announces as the call's held_until, when it announces. */
export function announcedUntil(expiresAt: Date): Date {
  return new Date(expiresAt.getTime() + HOLD_ANNOUNCED_PAST_LEASE_MS);
}

/** A session's state at `now` with its calls counted: a hold that has not lapsed is a running turn. */
export function stateWithCalls(state: SessionState, latestExpiry: Date | undefined, now: Date): SessionState {
  return latestExpiry !== undefined && latestExpiry.getTime() > now.getTime() ? 'running_turn' : state;
}
