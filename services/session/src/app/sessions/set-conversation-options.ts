import type { SessionChanges, SessionView } from '../../domain/sessions/session.ts';
import { invalidInput, noSuchSession } from '../../domain/errors.ts';
import type { ConversationStore } from '../ports.ts';
import { checkMode } from '../../domain/sessions/session-settings.ts';

/**
 * The owner's switches on one of their conversations: its relay mode and "Agents in this conversation may
 * start sessions". Users only: no agent can set mayCreateSessions.
 */
export async function setConversationOptions(
  deps: { store: ConversationStore; relay: { name: string } },
  input: { userId: string; sessionId: string; mode?: string; mayCreateSessions?: boolean },
): Promise<SessionView> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  return deps.store.transaction(async (tx) => {
    const session = await tx.lockSession(input.sessionId);
    if (session === undefined || session.userId !== input.userId) {
      throw noSuchSession(deps.relay.name, input.sessionId);
    }
    const changes: SessionChanges = {};
    if (input.mode !== undefined) changes.mode = checkMode(input.mode, 'update');
    if (input.mayCreateSessions !== undefined) changes.mayCreateSessions = input.mayCreateSessions;
    if (Object.keys(changes).length > 0) await tx.updateSession(session.id, changes);
    return (await tx.viewSessions([{ ...session, ...changes }]))[0]!;
  });
}
