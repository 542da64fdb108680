import { invalidInput, notFound } from './errors.ts';
import type { ConversationStore } from './ports.ts';

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
  if (input.relay === '' || input.remoteSessionId === '') throw invalidInput('relay and remote_session_id are required', { field: input.relay === '' ? 'relay' : 'remote_session_id' });
  if ((await deps.store.findSession(input.sessionId)) === undefined) {
    throw notFound(`No session '${input.sessionId}' on relay "${deps.relay.name}".`, { field: 'session' });
  }
  await deps.store.insertGrant({ sessionId: input.sessionId, kind: STARTED_REMOTE_GRANT, relay: `${input.relay}/${input.remoteSessionId}`, createdAt: now });
}
