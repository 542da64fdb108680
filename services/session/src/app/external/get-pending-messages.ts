import { invalidInput, noSuchSession } from '../../domain/errors.ts';
import type { PendingNote } from '../../domain/external/external-inbox.ts';
import type { ConversationStore, SessionReads } from '../ports.ts';

/**
 * GetPendingMessages: what waits unread for an external session's agent, in the one query of the inbox; a hosted
 * session has none (undefined), an unknown one is REMOTE_RELAY_NOT_FOUND.
 */
export async function getPendingMessages(
  deps: { reads: Pick<SessionReads, 'pending'>; store: Pick<ConversationStore, 'findSession'>; relay: { name: string } },
  input: { sessionId: string },
): Promise<PendingNote | undefined> {
  const note = await deps.reads.pending(input.sessionId);
  if (note !== undefined) return note;
  // A hosted session gets here, never an external agent's call.
  if ((await deps.store.findSession(input.sessionId)) === undefined) {
    throw noSuchSession(deps.relay.name, input.sessionId);
  }
  return undefined;
}

/** The most sessions one ListPendingMessages looks at. */
export const MAX_PENDING_LOOKS = 1_000;

/** ListPendingMessages: GetPendingMessages for several external sessions at once, by id; any other id is left out. */
export async function listPendingMessages(
  deps: { reads: Pick<SessionReads, 'pendingOf'> },
  input: { sessionIds: readonly string[] },
): Promise<Map<string, PendingNote>> {
  if (input.sessionIds.length > MAX_PENDING_LOOKS) {
    throw invalidInput(`at most ${MAX_PENDING_LOOKS} session ids at once`, { field: 'session_ids', max: MAX_PENDING_LOOKS });
  }
  return input.sessionIds.length === 0 ? new Map() : deps.reads.pendingOf(input.sessionIds);
}
