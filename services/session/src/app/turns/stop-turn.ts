import { forbidden, notFound } from '../../domain/errors.ts';
import type { SessionStore } from '../ports.ts';
import type { TurnStore } from './turn-store.ts';

/** Who asks to stop which session's turn. */
export interface StopTurnRequest {
  userId: string;
  /** The conversation whose agent asks; '' when the user does. */
  callerSessionId: string;
  sessionId: string;
}

/**
 * Asks the runner to stop the turn running (or about to run) in a session, as Stop does in the UI.
 * Returns whether a stop was requested (false: nothing was running or queued). Never on the
 * caller's own conversation; only on the user's own sessions.
 */
export async function stopTurn(
  deps: { sessions: Pick<SessionStore, 'findSession'>; turns: Pick<TurnStore, 'requestStop'> },
  request: StopTurnRequest,
): Promise<boolean> {
  if (request.callerSessionId !== '' && request.callerSessionId === request.sessionId) {
    throw forbidden('An agent cannot stop the conversation it runs in.');
  }
  const session = await deps.sessions.findSession(request.sessionId);
  if (session === undefined || session.userId !== request.userId) {
    throw notFound(`No session "${request.sessionId}" on this relay.`, { session: request.sessionId });
  }
  return deps.turns.requestStop(session.id);
}
