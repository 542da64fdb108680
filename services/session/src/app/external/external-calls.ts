/**
 * An external session's calls in flight (docs/relay-tool.md, An external session): its agent runs outside the relay and
 * has no turns, so while one of its relay_tool calls is in flight that call is its running turn, and
 * list_sessions and read_session show the session as running_turn. The gateway holds the call here for a lease
 * and renews it while the call goes on; a hold that a crashed gateway stopped renewing lapses by itself.
 */
import type { SessionState } from '../../domain/sessions/session.ts';
import { invalidInput, notFound } from '../../domain/errors.ts';
import { EXTERNAL_CALL_LEASE_MS, stateWithCalls } from '../../domain/external/external-calls.ts';
import type { SessionStore } from '../ports.ts';

/** A call id is the gateway's own (a UUID); anything longer is not one. */
const MAX_CALL_ID_LENGTH = 64;

/** A held call, as HoldExternalCall named it. */
export interface ExternalCallRef {
  sessionId: string;
  callId: string;
}

/** The most calls one RenewExternalCalls renews. */
export const RENEWED_AT_ONCE = 1_000;

/** Where the holds are kept. */
export interface ExternalCallStore {
  /**
   * Holds (or renews) the call until `expiresAt`, and drops the session's holds that lapsed before `now`; with the
   * session's user, announces the hold (the call is the session's running turn until then).
   */
  hold(sessionId: string, callId: string, expiresAt: Date, now: Date, userId?: string): Promise<void>;
  /**
   * Renews the holds of these calls that have not lapsed at `now` until `expiresAt`, announcing each as hold does, in
   * one transaction; answers the calls whose hold was not there (released, lapsed), which it leaves alone.
   */
  renew(calls: readonly ExternalCallRef[], expiresAt: Date, now: Date): Promise<ExternalCallRef[]>;
  /** Drops the call's hold; with `now` and the user, announces that the session's turn ended when no other call is held. */
  release(sessionId: string, callId: string, now?: Date, userId?: string): Promise<void>;
  /** The latest expiry of each of these sessions' holds (a session without holds is left out). */
  latestExpiries(sessionIds: readonly string[]): Promise<Map<string, Date>>;
}

/** HoldExternalCall: the call is in flight for a lease from `now`; only an external session has such calls. */
export async function holdExternalCall(
  deps: { store: Pick<SessionStore, 'findSession'>; calls: ExternalCallStore },
  input: { sessionId: string; callId: string },
  now: Date,
): Promise<{ leaseMs: number }> {
  if (input.callId === '' || input.callId.length > MAX_CALL_ID_LENGTH) {
    throw invalidInput(`call_id must be 1 to ${MAX_CALL_ID_LENGTH} characters`, { field: 'call_id' });
  }
  const session = await deps.store.findSession(input.sessionId);
  if (session === undefined) throw notFound(`no session '${input.sessionId}'`, { field: 'session_id' });
  if (session.origin !== 'external') {
    throw invalidInput('only an external session holds its calls: a hosted one has turns', { field: 'session_id' });
  }
  await deps.calls.hold(session.id, input.callId, new Date(now.getTime() + EXTERNAL_CALL_LEASE_MS), now, session.userId);
  return { leaseMs: EXTERNAL_CALL_LEASE_MS };
}

/**
 * RenewExternalCalls: a gateway's calls still in flight are held a lease from `now`, all in one write; a call whose
 * hold is gone is answered in `gone` and not held again (the gateway holds it with HoldExternalCall, which checks it).
 */
export async function renewExternalCalls(
  calls: Pick<ExternalCallStore, 'renew'>,
  input: { calls: readonly ExternalCallRef[] },
  now: Date,
): Promise<{ leaseMs: number; gone: ExternalCallRef[] }> {
  if (input.calls.length > RENEWED_AT_ONCE) {
    throw invalidInput(`at most ${RENEWED_AT_ONCE} calls are renewed at once; got ${input.calls.length}`, { field: 'calls' });
  }
  if (input.calls.some((call) => call.callId === '' || call.callId.length > MAX_CALL_ID_LENGTH)) {
    throw invalidInput(`call_id must be 1 to ${MAX_CALL_ID_LENGTH} characters`, { field: 'call_id' });
  }
  if (input.calls.length === 0) return { leaseMs: EXTERNAL_CALL_LEASE_MS, gone: [] };
  const gone = await calls.renew(input.calls, new Date(now.getTime() + EXTERNAL_CALL_LEASE_MS), now);
  return { leaseMs: EXTERNAL_CALL_LEASE_MS, gone };
}

/** ReleaseExternalCall: the call ended; the session's running turn ends with it unless another call is held. */
export async function releaseExternalCall(
  deps: { store: Pick<SessionStore, 'findSession'>; calls: ExternalCallStore },
  input: { sessionId: string; callId: string },
  now: Date,
): Promise<void> {
  const session = await deps.store.findSession(input.sessionId);
  await deps.calls.release(input.sessionId, input.callId, now, session?.userId);
}

/** `sessions` with running_turn where a call of theirs is in flight at `now` (only external sessions hold any). */
export async function withCallsInFlight<T extends { id: string; state: SessionState }>(
  calls: ExternalCallStore | undefined,
  sessions: T[],
  now: Date,
): Promise<T[]> {
  if (calls === undefined || sessions.length === 0) return sessions;
  const expiries = await calls.latestExpiries(sessions.map((session) => session.id));
  if (expiries.size === 0) return sessions;
  return sessions.map((session) => ({ ...session, state: stateWithCalls(session.state, expiries.get(session.id), now) }));
}
