import type { Provenance, RelayUnlock } from '../../domain/sessions/conversation.ts';
import type { SessionView } from '../../domain/sessions/session.ts';
import { noSuchSession } from '../../domain/errors.ts';
import type { ConversationStore } from '../ports.ts';
import { THIS_RELAY, UPDATE_OTHERS_GRANT } from '../../domain/sessions/plan-update-session.ts';

/** What the gateway needs to apply policy to a calling conversation. */
export interface Conversation {
  session: SessionView;
  /** A turn runs there now (running or waiting for an answer), so a card can show in it. */
  hasRunningTurn: boolean;
  /** The provenance of that turn; null when none runs or a user typed its prompt. */
  turnProvenance: Provenance | null;
  /** Sessions this conversation's agent has started. */
  startedSessions: number;
  /** The paired relays unlocked in it. */
  unlockedRelays: RelayUnlock[];
  /** The paired relays where the user allowed it to change sessions it did not start (update_session's card). */
  updateAllowedRelays: string[];
}

/** The calling conversation's mode, running turn and what it started. */
export async function getConversation(deps: { store: ConversationStore; relay: { name: string } }, input: { sessionId: string }): Promise<Conversation> {
  const session = await deps.store.findSession(input.sessionId);
  if (session === undefined) throw noSuchSession(deps.relay.name, input.sessionId);
  const [views, openTurns, startedSessions, unlockedRelays, updateGrants] = await Promise.all([
    deps.store.viewSessions([session]),
    deps.store.openTurns(session.id),
    deps.store.countStartedSessions(session.id),
    deps.store.listUnlocks(session.id),
    deps.store.grantRelays(session.id, UPDATE_OTHERS_GRANT),
  ]);
  const running = openTurns.find((turn) => turn.status === 'running' || turn.status === 'waiting_for_answer');
  return {
    session: views[0]!,
    hasRunningTurn: running !== undefined,
    turnProvenance: running?.provenance ?? null,
    startedSessions,
    unlockedRelays,
    updateAllowedRelays: updateGrants.filter((relay) => relay !== THIS_RELAY),
  };
}
