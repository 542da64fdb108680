/**
 * The question service's error catalogue: every refusal it returns, with its stable code.
 */
import { appError, AppError, type ErrorDetails } from '@relay/errors';

export const QuestionErrorCode = {
  INVALID_INPUT: 'REMOTE_RELAY_INVALID_INPUT',
  NOT_FOUND: 'REMOTE_RELAY_NOT_FOUND',
  FORBIDDEN: 'REMOTE_RELAY_FORBIDDEN',
  QUESTION_LIMIT: 'REMOTE_RELAY_QUESTION_LIMIT',
  NO_ACTIVE_TURN: 'REMOTE_RELAY_NO_ACTIVE_TURN',
} as const;

/** A wrong or missing argument, or a decision the card does not take; `details.field` names the argument. */
export function invalidInput(message: string, details: ErrorDetails = {}): AppError {
  return appError(QuestionErrorCode.INVALID_INPUT, message, { details });
}

/** No such card, or it belongs to another user (the two are never told apart). */
export function notFound(cardId: string): AppError {
  return appError(QuestionErrorCode.NOT_FOUND, `no card ${cardId}`, { details: { card: cardId } });
}

/** Past a bound on what waits for the user (pending cards of a session). */
export function questionLimit(message: string, details: ErrorDetails = {}): AppError {
  return appError(QuestionErrorCode.QUESTION_LIMIT, message, { details });
}

/** Never allowed: an agent deciding an approval card or its own session's card. */
export function forbidden(message: string, details: ErrorDetails = {}): AppError {
  return appError(QuestionErrorCode.FORBIDDEN, message, { details });
}

/**
 * A card withdrawn because the turn that raised it is gone (it ended, or its session was archived): nothing waits
 * for an answer, so none is taken. The spec's code for "no running turn to ask in", told apart from a card that
 * never was (NOT_FOUND) and from one the user already decided (INVALID_INPUT, "already …").
 */
export function turnGone(card: { id: string; sessionId: string }): AppError {
  return appError(
    QuestionErrorCode.NO_ACTIVE_TURN,
    `card ${card.id} was withdrawn: the turn that asked it in session ${card.sessionId} has ended, so nothing waits for an answer`,
    { details: { card: card.id, session: card.sessionId, status: 'cancelled' } },
  );
}
