import { invalidInput, noSuchSession } from '../../domain/errors.ts';
import type { ActionDeps } from '../ports.ts';
import type { SessionView } from '../../domain/sessions/session.ts';

/**
 * unarchive, the user's own (never an agent's): an archived session of theirs is active again, listed with
 * their active sessions, and its token authenticates again unless it was revoked. What archiving ended
 * (queued turns, schedules, subscriptions, asks, an agent-made group) stays ended. An unarchived session
 * changes nothing.
 */
export async function unarchiveSession(deps: Pick<ActionDeps, 'store' | 'relay'>, input: { userId: string; sessionId: string }): Promise<SessionView> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  return deps.store.transaction(async (tx) => {
    const target = await tx.lockSession(input.sessionId);
    if (target === undefined || target.userId !== input.userId) {
      throw noSuchSession(deps.relay.name, input.sessionId, 'Nothing was unarchived.');
    }
    if (target.archived) await tx.updateSession(target.id, { archived: false });
    const stored = await tx.findSession(target.id);
    if (stored === undefined) throw new Error('the session just unarchived is missing');
    return (await tx.viewSessions([stored]))[0]!;
  });
}
