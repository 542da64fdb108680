import type { SessionState } from '../sessions/session.ts';

/** How long one hold lasts unless renewed: long enough for a loaded gateway's renewals, short for a stale mark. */
export const EXTERNAL_CALL_LEASE_MS = 60_000;

/** A session's state at `now` with its calls counted: a hold that has not lapsed is a running turn. */
export function stateWithCalls(state: SessionState, latestExpiry: Date | undefined, now: Date): SessionState {
  return latestExpiry !== undefined && latestExpiry.getTime() > now.getTime() ? 'running_turn' : state;
}
