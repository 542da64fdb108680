import type { Turn } from '../../domain/turns/turn.ts';
import { forbidden, notFound } from '../../domain/errors.ts';
import type { SessionStore } from '../ports.ts';
import type { TurnStore } from './turn-store.ts';

/** Which turn to wait for: the one the message started in that session. */
export interface WaitRequest {
  userId: string;
  /** The conversation whose agent waits; '' when the user does. */
  callerSessionId: string;
  sessionId: string;
  messageId: string;
}

/**
 * The turn a wait is for. Refuses waiting on the caller's own conversation, and answers not found
 * when the message is not one of that session's, or the session is not the user's.
 */
export async function findWaitedTurn(
  deps: { sessions: Pick<SessionStore, 'findSession'>; turns: Pick<TurnStore, 'findTurnByMessage'> },
  request: WaitRequest,
): Promise<Turn> {
  if (request.callerSessionId !== '' && request.callerSessionId === request.sessionId) {
    throw forbidden('An agent cannot wait for the conversation it runs in.');
  }
  const [session, turn] = await Promise.all([deps.sessions.findSession(request.sessionId), deps.turns.findTurnByMessage(request.messageId)]);
  if (session === undefined || session.userId !== request.userId || turn === undefined || turn.sessionId !== session.id) {
    throw notFound(`No message "${request.messageId}" in session "${request.sessionId}" on this relay.`, {
      session: request.sessionId,
      message_id: request.messageId,
    });
  }
  return turn;
}
