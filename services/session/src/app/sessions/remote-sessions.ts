import { invalidInput, noSuchSession } from '../../domain/errors.ts';
import type { ConversationStore } from '../ports.ts';
import { THIS_RELAY, UPDATE_OTHERS_GRANT } from '../../domain/sessions/plan-update-session.ts';

/**
 * The grant kind that records a session a conversation's agent started on a paired relay, one row per session
 * (relay "<relay>/<session id>"): such sessions count among those the conversation started, so the card before
 * the first one (spec, What you see) is not asked again, whichever relay the next one starts on.
 */
export const STARTED_REMOTE_GRANT = 'started_remote';

/** Records that the conversation `sessionId` started `remoteSessionId` on the paired relay `relay`; idempotent. */
export async function noteRemoteSessionStarted(
  deps: { store: ConversationStore; relay: { name: string } },
  input: { sessionId: string; relay: string; remoteSessionId: string },
  now: Date,
): Promise<void> {
  if (input.relay === '' || input.remoteSessionId === '')
    throw invalidInput('relay and remote_session_id are required', { field: input.relay === '' ? 'relay' : 'remote_session_id' });
  if ((await deps.store.findSession(input.sessionId)) === undefined) {
    throw noSuchSession(deps.relay.name, input.sessionId);
  }
  await deps.store.insertGrant({ sessionId: input.sessionId, kind: STARTED_REMOTE_GRANT, relay: `${input.relay}/${input.remoteSessionId}`, createdAt: now });
}

/**
 * Records the user's Allow, on update_session's card, for the conversation `sessionId` to change sessions it did not
 * start on the paired relay `relay` (as named here): one grant per conversation and relay, as for this relay; idempotent.
 */
export async function noteRemoteUpdateAllowed(
  deps: { store: ConversationStore; relay: { name: string } },
  input: { sessionId: string; relay: string },
  now: Date,
): Promise<void> {
  if (input.relay === '' || input.relay === THIS_RELAY) throw invalidInput('relay must name a paired relay', { field: 'relay' });
  if ((await deps.store.findSession(input.sessionId)) === undefined) {
    throw noSuchSession(deps.relay.name, input.sessionId);
  }
  await deps.store.insertGrant({ sessionId: input.sessionId, kind: UPDATE_OTHERS_GRANT, relay: input.relay, createdAt: now });
}
