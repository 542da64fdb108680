/**
 * The session service's error catalogue: every refusal it returns, with its stable code.
 */
import { AppError, type ErrorDetails } from '@relay/errors';

export const SessionErrorCode = {
  INVALID_INPUT: 'REMOTE_RELAY_INVALID_INPUT',
  NOT_FOUND: 'REMOTE_RELAY_NOT_FOUND',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
} as const;

/** A wrong or missing argument; `details.field` names it. */
export function invalidInput(message: string, details: ErrorDetails): AppError {
  return new AppError(SessionErrorCode.INVALID_INPUT, 'invalid_argument', message, { details });
}

/** No such user or session (or not visible to the caller). */
export function notFound(message: string, details: ErrorDetails): AppError {
  return new AppError(SessionErrorCode.NOT_FOUND, 'not_found', message, { details });
}

/** A token that is unknown, malformed, or whose session is archived. Never says which, never echoes it. */
export function unauthenticated(): AppError {
  return new AppError(SessionErrorCode.UNAUTHENTICATED, 'unauthenticated', 'unknown or revoked token');
}
