import type { Session, SessionView } from '../../domain/entities.ts';
import { invalidInput } from '../../domain/errors.ts';
import type { ConversationStore, SessionFilter, SessionStore } from '../ports.ts';

/** Which of a user's sessions to list. */
export type SessionScope = 'active' | 'archived' | 'all';

const FILTERS: Record<SessionScope, SessionFilter> = {
  active: { archived: false },
  archived: { archived: true },
  all: {},
};

/** Lists a user's sessions in a scope ('' means active), most recently active first, with their groups. */
export async function listSessions(
  store: Pick<SessionStore, 'listSessions'> & Pick<ConversationStore, 'viewSessions'>,
  input: { userId: string; scope: string },
): Promise<SessionView[]> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const scope = input.scope === '' ? 'active' : input.scope;
  if (!isScope(scope)) {
    throw invalidInput(`unknown scope "${scope}"`, { field: 'scope', allowed: Object.keys(FILTERS) });
  }
  const sessions = await store.listSessions(input.userId, FILTERS[scope]);
  return store.viewSessions(sessions.sort(byRecentActivity));
}

/** Most recent activity first; ties by newest creation, then id, so the order is stable. */
export function byRecentActivity(a: Session, b: Session): number {
  return (
    b.lastActivityAt.getTime() - a.lastActivityAt.getTime() ||
    b.createdAt.getTime() - a.createdAt.getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

function isScope(value: string): value is SessionScope {
  return Object.hasOwn(FILTERS, value);
}
