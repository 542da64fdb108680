import type { Session } from '../../domain/sessions/session.ts';
import { invalidInput } from '../../domain/errors.ts';
import { TASK_OUTPUT_KEPT_MS } from '../../domain/tasks/task.ts';
import { stateWithCalls } from '../../domain/external/external-calls.ts';
import type { ListedSession, SessionFilter, SessionListing, SessionReads } from '../ports.ts';

/** Which of a user's sessions to list. */
export type SessionScope = 'active' | 'archived' | 'all';

const FILTERS: Record<SessionScope, SessionFilter> = {
  active: { archived: false },
  archived: { archived: true },
  all: {},
};

/**
 * Lists a user's sessions in a scope ('' means active), most recently active first, with their groups; a session
 * with an external call in flight at `now` is running_turn. With the pending note of `pendingFor` (PendingAlong).
 */
export async function listSessions(
  reads: Pick<SessionReads, 'listSessions'>,
  input: { userId: string; scope: string; pendingFor?: string },
  now: Date,
): Promise<SessionListing> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const scope = input.scope === '' ? 'active' : input.scope;
  if (!isScope(scope)) {
    throw invalidInput(`unknown scope "${scope}"`, { field: 'scope', allowed: Object.keys(FILTERS) });
  }
  const { sessions, pending } = await reads.listSessions(input.userId, FILTERS[scope], tasksShownSince(now), input.pendingFor);
  return { sessions: sessions.sort(byRecentActivity).map((session) => withCallsAt(session, now)), pending };
}

/** The session with running_turn while a call of its agent is in flight at `now` (only external sessions hold any). */
export function withCallsAt(session: ListedSession, now: Date): ListedSession {
  return { ...session, state: stateWithCalls(session.state, session.callsHeldUntil ?? undefined, now) };
}

/** Tasks that ended before this are no longer shown on their session. */
export function tasksShownSince(now: Date): Date {
  return new Date(now.getTime() - TASK_OUTPUT_KEPT_MS);
}

/** Most recent activity first; ties by newest creation, then id, so the order is stable. */
export function byRecentActivity(a: Session, b: Session): number {
  return b.lastActivityAt.getTime() - a.lastActivityAt.getTime() || b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function isScope(value: string): value is SessionScope {
  return Object.hasOwn(FILTERS, value);
}
