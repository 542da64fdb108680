import type { User } from '../../domain/users/user.ts';
import { forbidden, lastAdmin, notFound } from '../../domain/errors.ts';
import { archiveLockedSession } from '../sessions/archive-session.ts';
import type { IdGenerator, SessionStore } from '../ports.ts';

/**
 * Removes a user, for an admin: every token of theirs (their own and their sessions') stops working at once, and
 * their sessions are archived, not deleted (their conversations stay readable in the database, their running
 * turns are asked to stop, their schedules and subscriptions find them archived). The user row stays, marked
 * removed, never listed, its name free for someone new. An admin never removes themselves (another admin must),
 * nor the relay's only admin; both checked under the users lock, so two admins removing each other at once
 * leave one.
 */
export async function removeUser(
  deps: { store: SessionStore; ids: IdGenerator },
  input: { userId: string; callerUserId: string },
  now: Date,
): Promise<{ user: User; archivedSessions: number }> {
  if (input.userId === input.callerUserId) {
    throw forbidden('You cannot remove yourself; another admin must. Nothing was removed.');
  }
  return deps.store.lockUsers(async (tx) => {
    const users = await tx.listUsers();
    const user = users.find((candidate) => candidate.id === input.userId);
    if (user === undefined) throw notFound(`No user '${input.userId}' on this relay. Nothing was removed.`, { field: 'user' });
    if (user.role === 'admin' && users.filter((candidate) => candidate.role === 'admin').length === 1) throw lastAdmin(user.name);
    const sessions = await tx.listSessions(user.id, { archived: false });
    for (const session of sessions) {
      const locked = await tx.lockSession(session.id);
      if (locked !== undefined && !locked.archived) await archiveLockedSession(tx, deps.ids, locked, now);
    }
    await tx.markUserRemoved(user.id, now);
    return { user, archivedSessions: sessions.length };
  });
}
