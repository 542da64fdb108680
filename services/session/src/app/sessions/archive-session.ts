import { forbidden, invalidInput, noSuchSession } from '../../domain/errors.ts';
import { tidyGroup } from '../groups/tidy-group.ts';
import type { ActionDeps, ConversationStore, IdGenerator } from '../ports.ts';
import type { Session, SessionView } from '../../domain/sessions/session.ts';

/**
 * archive: marks the session archived, drops its queued turns (stopped), asks the runner to stop a running
 * one, records relay.session.v1.archived, and removes an agent-made group left with no unarchived session,
 * in one transaction. Archiving an archived session changes nothing. Never the caller's own conversation.
 */
export async function archiveSession(
  deps: Pick<ActionDeps, 'store' | 'ids' | 'relay'>,
  input: { userId: string; callerSessionId: string; sessionId: string },
  now: Date,
): Promise<{ session: SessionView; stopRequested: boolean }> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  return deps.store.transaction(async (tx) => {
    const target = await tx.lockSession(input.sessionId);
    if (target === undefined || target.userId !== input.userId) {
      throw noSuchSession(deps.relay.name, input.sessionId, 'Nothing was archived.');
    }
    if (target.id === input.callerSessionId) {
      throw forbidden('An agent cannot archive the conversation it runs in. Nothing was archived.');
    }
    if (target.archived) return { session: (await tx.viewSessions([target]))[0]!, stopRequested: false };

    const stopRequested = await archiveLockedSession(tx, deps.ids, target, now);
    const stored = await tx.findSession(target.id);
    if (stored === undefined) throw new Error('the session just archived is missing');
    return { session: (await tx.viewSessions([stored]))[0]!, stopRequested };
  });
}

/**
 * Archives an unarchived session whose row `tx` holds locked (archive, and removing its user): stops its queued
 * turns, asks the runner to stop a running one, records relay.session.v1.archived, tidies its group. True when a
 * running turn was asked to stop.
 */
export async function archiveLockedSession(tx: ConversationStore, ids: IdGenerator, target: Session, now: Date): Promise<boolean> {
  await tx.stopQueuedTurns(target.id, now);
  const stopRequested = await tx.requestStop(target.id);
  // A running turn keeps the session at work until the runner has stopped it (and sets it idle).
  await tx.updateSession(target.id, { archived: true, ...(stopRequested ? {} : { state: 'idle' as const }) });
  await tx.recordEvent({ type: 'archived', eventId: ids.newId(), occurredAt: now, sessionId: target.id, userId: target.userId });
  if (target.groupId !== null) await tidyGroup(tx, target.groupId, { headLeft: false });
  return stopRequested;
}
