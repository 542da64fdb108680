import { invalidInput } from '../../domain/errors.ts';
import { TASK_OUTPUT_KEPT_MS } from '../../domain/tasks/task.ts';
import { stateWithCalls } from '../../domain/external/external-calls.ts';
import type { ListedSession, SessionFilter, SessionListing, SessionPage, SessionReads } from '../ports.ts';

/** Which of a user's sessions to list. */
export type SessionScope = 'active' | 'archived' | 'all';

/**
 * The most sessions one listing answers: a page of list_sessions and of the user API (docs/adr/0046). No caller asks for
 * every session: what a listing costs must not grow with the user's sessions.
 */
export const LIST_LIMIT_MAX = 100;

const FILTERS: Record<SessionScope, SessionFilter> = {
  active: { archived: false },
  archived: { archived: true },
  all: {},
};

/**
 * Lists a page of a user's sessions in a scope ('' means active), most recently active first, with their groups and the
 * scope's total; a limit of 0 (every session) or past LIST_LIMIT_MAX is refused. A session with an external call in
 * flight at `now` is running_turn. With the pending note of `pendingFor` (PendingAlong).
 */
export async function listSessions(
  reads: Pick<SessionReads, 'listSessions'>,
  input: { userId: string; scope: string; page: SessionPage; pendingFor?: string },
  now: Date,
): Promise<SessionListing> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const scope = input.scope === '' ? 'active' : input.scope;
  if (!isScope(scope)) {
    throw invalidInput(`unknown scope "${scope}"`, { field: 'scope', allowed: Object.keys(FILTERS) });
  }
  const { page } = input;
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > LIST_LIMIT_MAX) {
    throw invalidInput(`limit must be from 1 to ${LIST_LIMIT_MAX}: a listing is a page`, { field: 'limit', max: LIST_LIMIT_MAX });
  }
  const listing = await reads.listSessions(input.userId, FILTERS[scope], page, tasksShownSince(now), input.pendingFor);
  return { ...listing, sessions: listing.sessions.map((session) => withCallsAt(session, now)) };
}

/** The session with running_turn while a call of its agent is in flight at `now` (only external sessions hold any). */
export function withCallsAt(session: ListedSession, now: Date): ListedSession {
  return { ...session, state: stateWithCalls(session.state, session.callsHeldUntil ?? undefined, now) };
}

/** Tasks that ended before this are no longer shown on their session. */
export function tasksShownSince(now: Date): Date {
  return new Date(now.getTime() - TASK_OUTPUT_KEPT_MS);
}

function isScope(value: string): value is SessionScope {
  return Object.hasOwn(FILTERS, value);
}
